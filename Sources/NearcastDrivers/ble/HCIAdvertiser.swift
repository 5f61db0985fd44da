import NearcastCore

/// Advertising through a real controller, in the order the Core spec asks for: disable the
/// set, give it its random address and parameters, its data (and for legacy advertising an
/// empty scan response), then enable it. Every command's status is checked.
///
/// At start it asks the controller for LE Extended Advertising (feature bit 12). With it, each
/// scheduler set is an extended advertising set carrying legacy PDUs (ADV_NONCONN_IND, which
/// every phone scans for), up to ``maximumSets``; without it there is one legacy set. Sets the
/// controller stopped by itself (LE Advertising Set Terminated) and, every ``refreshSeconds``,
/// every set that should be on, are enabled again.
public final class HCIAdvertiser: BLEDevice {
    /// At most this many sets are used (one per publication).
    public static let maximumSets = 8
    /// How often sets that should be on are enabled again, in case the controller lost them.
    public static let refreshSeconds = 10.0

    public let controller: HCIController
    public let setCount: Int
    /// Whether the controller does extended advertising (one set per publication).
    public let usesExtendedAdvertising: Bool
    /// Advertising interval in ms. Beacons (non-connectable) use at least 100 ms, the floor
    /// Core 4.x set for them and that older controller firmware still enforces.
    public var intervalMilliseconds: Int
    /// The radio TX power the controller chose for each extended set (dBm), when it said.
    public private(set) var selectedTxPower: [Int8?]
    /// Sets switched on again after the controller turned them off, for status.
    public private(set) var reenabled = 0
    /// Called with each LE advertising report event (legacy or extended) while scanning.
    public var onReport: ((UnsafeRawBufferPointer) -> Void)?
    /// Whether the controller is scanning.
    public private(set) var isScanning = false
    private var enabled: [Bool]
    private var terminated: [Bool]
    private var lastRefresh = 0.0

    /// Sets the controller up (a reset and event masks when Nearcast owns it) and finds out
    /// what it can do. `log` hears what was found.
    public init(controller: HCIController, intervalMilliseconds: Int, log: (String) -> Void) throws(BluetoothError) {
        self.controller = controller
        self.intervalMilliseconds = intervalMilliseconds
        if controller.transport.ownsController {
            try controller.execute(.reset())
            try controller.execute(.setEventMask(HCICommand.eventMaskWithLEMeta))
            try controller.execute(.leSetEventMask(HCICommand.leEventMask))
        }
        let features = try controller.execute(.leReadLocalSupportedFeatures())
        let extended = features.returnedCount >= 2 && features[returned: 1] & 0x10 != 0
        var sets = 1
        if extended {
            let answer = try controller.execute(.leReadNumberOfSupportedAdvertisingSets())
            sets = answer.returnedCount >= 1 ? max(1, min(Int(answer[returned: 0]), Self.maximumSets)) : 1
        }
        usesExtendedAdvertising = extended
        setCount = sets
        selectedTxPower = Array(repeating: nil, count: sets)
        enabled = Array(repeating: false, count: sets)
        terminated = Array(repeating: false, count: sets)
        log("bluetooth: \(controller.transport.name), " + (extended
            ? "extended advertising, \(sets) set\(sets == 1 ? "" : "s") (legacy ADV_NONCONN_IND PDUs)"
            : "legacy advertising, one set (ADV_NONCONN_IND)"))
        controller.otherEvent = { [unowned self] event in
            self.noticeTermination(event)
            if event.count >= 3, event[0] == LEAdvertisingReports.leMetaEventCode,
               event[2] == LEAdvertisingReports.legacySubevent || event[2] == LEAdvertisingReports.extendedSubevent {
                self.onReport?(event)
            }
        }
        // Start from a known state: nothing of ours on the air.
        if extended {
            try controller.execute(.leSetExtendedAdvertisingEnable(false, handle: 0), allowing: [0x42, 0x0C])
        } else {
            try controller.execute(.leSetAdvertisingEnable(false), allowing: [0x0C])
        }
    }

    private var units: UInt32 { HCICommand.advertisingUnits(milliseconds: max(intervalMilliseconds, 100)) }

    public func advertise(set: Int, data: AdvertisingData, address: BLEAddress) throws(BluetoothError) {
        precondition((0..<setCount).contains(set), "advertising set \(set) does not exist")
        let handle = UInt8(set)
        if usesExtendedAdvertising {
            // 0x42: the set does not exist yet (first use); parameters create it.
            try controller.execute(.leSetExtendedAdvertisingEnable(false, handle: handle), allowing: [0x42])
            let answer = try controller.execute(.leSetExtendedAdvertisingParameters(handle: handle, type: .nonConnectable,
                                                                                   interval: units, txPower: 0x7F))
            if answer.returnedCount >= 1 { selectedTxPower[set] = Int8(bitPattern: answer[returned: 0]) }
            try controller.execute(.leSetAdvertisingSetRandomAddress(handle: handle, address))
            try controller.execute(.leSetExtendedAdvertisingData(handle: handle, data))
            try controller.execute(.leSetExtendedAdvertisingEnable(true, handle: handle))
        } else {
            try controller.execute(.leSetAdvertisingEnable(false), allowing: [0x0C])
            try controller.execute(.leSetRandomAddress(address))
            try controller.execute(.leSetAdvertisingParameters(interval: units, type: .nonConnectable))
            try controller.execute(.leSetAdvertisingData(data))
            try controller.execute(.leSetAdvertisingData(AdvertisingData(), scanResponse: true))
            try controller.execute(.leSetAdvertisingEnable(true))
        }
        enabled[set] = true
        terminated[set] = false
    }

    public func stop(set: Int) throws(BluetoothError) {
        precondition((0..<setCount).contains(set), "advertising set \(set) does not exist")
        guard enabled[set] else { return }
        if usesExtendedAdvertising {
            try controller.execute(.leSetExtendedAdvertisingEnable(false, handle: UInt8(set)), allowing: [0x42])
        } else {
            try controller.execute(.leSetAdvertisingEnable(false), allowing: [0x0C])
        }
        enabled[set] = false
    }

    /// Starts or stops passive scanning (60 ms window every 100 ms, duplicates kept so a
    /// beacon's presence keeps being confirmed); reports go to ``onReport``.
    public func setScanning(_ on: Bool) throws(BluetoothError) {
        guard on != isScanning else { return }
        if usesExtendedAdvertising {
            if on { try controller.execute(.leSetExtendedScanParameters(active: false, interval: 0xA0, window: 0x60)) }
            try controller.execute(.leSetExtendedScanEnable(on, filterDuplicates: false))
        } else {
            if on { try controller.execute(.leSetScanParameters(active: false, interval: 0xA0, window: 0x60)) }
            try controller.execute(.leSetScanEnable(on, filterDuplicates: false))
        }
        isScanning = on
    }

    /// Call from the daemon's loop with the time in seconds: reads waiting events and enables
    /// again any set that should be on but the controller stopped (or, every
    /// ``refreshSeconds``, all of them, since a controller can lose its state silently).
    public func maintain(now: Double) throws(BluetoothError) {
        try controller.pollEvents()
        let refreshAll = now - lastRefresh >= Self.refreshSeconds
        if refreshAll { lastRefresh = now }
        for set in 0..<setCount where enabled[set] && (terminated[set] || refreshAll) {
            if terminated[set] { reenabled += 1 }
            terminated[set] = false
            if usesExtendedAdvertising {
                try controller.execute(.leSetExtendedAdvertisingEnable(true, handle: UInt8(set)))
            } else {
                try controller.execute(.leSetAdvertisingEnable(true), allowing: [0x0C])   // 4.x: already on
            }
        }
    }

    /// LE Advertising Set Terminated: Status, Advertising_Handle, ... (§7.7.65.18).
    private func noticeTermination(_ event: UnsafeRawBufferPointer) {
        guard event.count >= 5, event[0] == LEAdvertisingReports.leMetaEventCode,
              event[2] == HCIEvent.advertisingSetTerminatedSubevent else { return }
        let handle = Int(event[4])
        if handle < setCount { terminated[handle] = true }
    }
}

