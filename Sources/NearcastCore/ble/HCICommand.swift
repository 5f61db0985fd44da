/// One HCI command: opcode and parameters, laid out as the Bluetooth Core specification (Vol 4,
/// Part E, §5.4.1 and §7) says, little-endian, in a fixed buffer. ``withH4Packet(_:)`` hands
/// out the bytes a BlueZ raw socket or an H4 UART takes (packet type 0x01 first).
///
/// Only the commands Nearcast sends are built here; each builder names its section of the
/// spec. Building allocates nothing.
public struct HCICommand: Sendable {
    /// The most parameter bytes a command carries (the length field is one byte).
    public static let maximumParameters = 255

    /// OGF << 10 | OCF.
    public let opcode: UInt16
    private var storage: FixedArray<Tuple256<UInt8>, UInt8> = FixedArray(repeating: 0)
    /// Parameter bytes.
    public private(set) var parameterCount = 0

    /// An empty command `opcode`; add parameters with the `append` methods.
    public init(opcode: UInt16) { self.opcode = opcode }

    public subscript(parameter index: Int) -> UInt8 {
        precondition(index >= 0 && index < parameterCount, "parameter \(index) of \(parameterCount)")
        return storage[index]
    }

    public mutating func append(_ byte: UInt8) {
        precondition(parameterCount < Self.maximumParameters, "HCI command parameters over 255 bytes")
        storage[parameterCount] = byte
        parameterCount += 1
    }

    /// Appends the low `count` bytes of `value`, least significant first (the spec's byte order).
    public mutating func append(littleEndian value: UInt64, count: Int) {
        for index in 0..<count { append(UInt8(truncatingIfNeeded: value >> UInt64(8 * index))) }
    }

    public mutating func append(_ address: BLEAddress) {
        for index in 0..<6 { append(address[hciByte: index]) }
    }

    /// Calls `body` with the H4 packet: 0x01, opcode (2 bytes), parameter length, parameters.
    public func withH4Packet<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        var packet: FixedArray<Tuple512<UInt8>, UInt8> = FixedArray(repeating: 0)
        packet[0] = 0x01
        packet[1] = UInt8(truncatingIfNeeded: opcode)
        packet[2] = UInt8(truncatingIfNeeded: opcode >> 8)
        packet[3] = UInt8(parameterCount)
        for index in 0..<parameterCount { packet[4 + index] = storage[index] }
        let length = 4 + parameterCount
        return try packet.withUnsafeBytes { raw throws(E) in try body(UnsafeRawBufferPointer(rebasing: raw[0..<length])) }
    }

    /// The command's name for messages ("LE Set Advertising Parameters (0x2006)").
    public var name: String { HCIOpcode.name(of: opcode) }
}

/// The opcodes Nearcast uses (OGF << 10 | OCF; Core Vol 4, Part E, §7).
public enum HCIOpcode {
    public static let setEventMask: UInt16 = 0x0C01                      // §7.3.1
    public static let reset: UInt16 = 0x0C03                             // §7.3.2
    public static let readLocalVersion: UInt16 = 0x1001                  // §7.4.1
    public static let leSetEventMask: UInt16 = 0x2001                    // §7.8.1
    public static let leReadLocalSupportedFeatures: UInt16 = 0x2003      // §7.8.3
    public static let leSetRandomAddress: UInt16 = 0x2005                // §7.8.4
    public static let leSetAdvertisingParameters: UInt16 = 0x2006        // §7.8.5
    public static let leSetAdvertisingData: UInt16 = 0x2008              // §7.8.7
    public static let leSetScanResponseData: UInt16 = 0x2009             // §7.8.8
    public static let leSetAdvertisingEnable: UInt16 = 0x200A            // §7.8.9
    public static let leSetScanParameters: UInt16 = 0x200B               // §7.8.10
    public static let leSetScanEnable: UInt16 = 0x200C                   // §7.8.11
    public static let leSetAdvertisingSetRandomAddress: UInt16 = 0x2035  // §7.8.52
    public static let leSetExtendedAdvertisingParameters: UInt16 = 0x2036 // §7.8.53 (v1)
    public static let leSetExtendedAdvertisingData: UInt16 = 0x2037      // §7.8.54
    public static let leSetExtendedScanResponseData: UInt16 = 0x2038     // §7.8.55
    public static let leSetExtendedAdvertisingEnable: UInt16 = 0x2039    // §7.8.56
    public static let leReadNumberOfSupportedAdvertisingSets: UInt16 = 0x203B // §7.8.58
    public static let leRemoveAdvertisingSet: UInt16 = 0x203C            // §7.8.59
    public static let leClearAdvertisingSets: UInt16 = 0x203D            // §7.8.60
    public static let leSetExtendedScanParameters: UInt16 = 0x2041       // §7.8.64
    public static let leSetExtendedScanEnable: UInt16 = 0x2042           // §7.8.65

    /// A readable name for `opcode`, with its value.
    public static func name(of opcode: UInt16) -> String {
        let text: String
        switch opcode {
        case setEventMask: text = "Set Event Mask"
        case reset: text = "Reset"
        case readLocalVersion: text = "Read Local Version Information"
        case leSetEventMask: text = "LE Set Event Mask"
        case leReadLocalSupportedFeatures: text = "LE Read Local Supported Features"
        case leSetRandomAddress: text = "LE Set Random Address"
        case leSetAdvertisingParameters: text = "LE Set Advertising Parameters"
        case leSetAdvertisingData: text = "LE Set Advertising Data"
        case leSetScanResponseData: text = "LE Set Scan Response Data"
        case leSetAdvertisingEnable: text = "LE Set Advertising Enable"
        case leSetScanParameters: text = "LE Set Scan Parameters"
        case leSetScanEnable: text = "LE Set Scan Enable"
        case leSetAdvertisingSetRandomAddress: text = "LE Set Advertising Set Random Address"
        case leSetExtendedAdvertisingParameters: text = "LE Set Extended Advertising Parameters"
        case leSetExtendedAdvertisingData: text = "LE Set Extended Advertising Data"
        case leSetExtendedScanResponseData: text = "LE Set Extended Scan Response Data"
        case leSetExtendedAdvertisingEnable: text = "LE Set Extended Advertising Enable"
        case leReadNumberOfSupportedAdvertisingSets: text = "LE Read Number of Supported Advertising Sets"
        case leRemoveAdvertisingSet: text = "LE Remove Advertising Set"
        case leClearAdvertisingSets: text = "LE Clear Advertising Sets"
        case leSetExtendedScanParameters: text = "LE Set Extended Scan Parameters"
        case leSetExtendedScanEnable: text = "LE Set Extended Scan Enable"
        default: text = "HCI command"
        }
        return "\(text) (0x\(Hex.format(UInt64(opcode), byteCount: 2)))"
    }
}

/// Legacy advertising PDU types (§7.8.5 Advertising_Type).
public enum LegacyAdvertisingType: UInt8, Sendable {
    /// ADV_SCAN_IND: scannable, not connectable.
    case scannable = 0x02
    /// ADV_NONCONN_IND: a beacon (neither connectable nor scannable).
    case nonConnectable = 0x03

    /// The extended-advertising event properties for the same legacy PDU (§7.8.53: bit 4 legacy,
    /// bit 1 scannable).
    public var extendedProperties: UInt16 { self == .scannable ? 0x0012 : 0x0010 }
}

extension HCICommand {
    /// Advertising intervals are in units of 0.625 ms.
    public static func advertisingUnits(milliseconds: Int) -> UInt32 { UInt32(max(0, milliseconds) * 8 / 5) }

    public static func reset() -> HCICommand { HCICommand(opcode: HCIOpcode.reset) }
    public static func readLocalVersion() -> HCICommand { HCICommand(opcode: HCIOpcode.readLocalVersion) }
    public static func leReadLocalSupportedFeatures() -> HCICommand { HCICommand(opcode: HCIOpcode.leReadLocalSupportedFeatures) }
    public static func leReadNumberOfSupportedAdvertisingSets() -> HCICommand {
        HCICommand(opcode: HCIOpcode.leReadNumberOfSupportedAdvertisingSets)
    }

    /// Set Event Mask (§7.3.1): 8 bytes of event bits.
    public static func setEventMask(_ mask: UInt64) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.setEventMask)
        command.append(littleEndian: mask, count: 8)
        return command
    }

    /// The event mask Nearcast needs after a reset: the spec's default (bits 0-44) plus LE Meta
    /// (bit 61), which the default leaves out.
    public static let eventMaskWithLEMeta: UInt64 = 0x0000_1FFF_FFFF_FFFF | 1 << 61

    /// LE Set Event Mask (§7.8.1).
    public static func leSetEventMask(_ mask: UInt64) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.leSetEventMask)
        command.append(littleEndian: mask, count: 8)
        return command
    }

    /// LE events Nearcast listens for: Advertising Report (bit 1), Extended Advertising Report
    /// (bit 12), Advertising Set Terminated (bit 17), plus the default bits 0-4.
    public static let leEventMask: UInt64 = 0x1F | 1 << 12 | 1 << 17

    /// LE Set Random Address (§7.8.4).
    public static func leSetRandomAddress(_ address: BLEAddress) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.leSetRandomAddress)
        command.append(address)
        return command
    }

    /// LE Set Advertising Parameters (§7.8.5): undirected, from the random address, on all three
    /// channels, no filter. The interval is in 0.625 ms units (0x0020-0x4000).
    public static func leSetAdvertisingParameters(interval: UInt32, type: LegacyAdvertisingType) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.leSetAdvertisingParameters)
        let units = UInt64(min(max(interval, 0x20), 0x4000))
        command.append(littleEndian: units, count: 2)          // Advertising_Interval_Min
        command.append(littleEndian: units, count: 2)          // Advertising_Interval_Max
        command.append(type.rawValue)                          // Advertising_Type
        command.append(0x01)                                   // Own_Address_Type: random
        command.append(0x00)                                   // Peer_Address_Type
        command.append(littleEndian: 0, count: 6)              // Peer_Address
        command.append(0x07)                                   // Advertising_Channel_Map: 37, 38, 39
        command.append(0x00)                                   // Advertising_Filter_Policy: none
        return command
    }

    /// LE Set Advertising Data (§7.8.7) or Scan Response Data (§7.8.8): a length byte and
    /// always 31 data bytes, zero-padded.
    public static func leSetAdvertisingData(_ data: AdvertisingData, scanResponse: Bool = false) -> HCICommand {
        var command = HCICommand(opcode: scanResponse ? HCIOpcode.leSetScanResponseData : HCIOpcode.leSetAdvertisingData)
        command.append(UInt8(data.count))
        for index in 0..<AdvertisingData.capacity { command.append(index < data.count ? data[index] : 0) }
        return command
    }

    /// LE Set Advertising Enable (§7.8.9).
    public static func leSetAdvertisingEnable(_ enable: Bool) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.leSetAdvertisingEnable)
        command.append(enable ? 1 : 0)
        return command
    }

    /// LE Set Scan Parameters (§7.8.10): passive or active scanning from the random address,
    /// interval and window in 0.625 ms units, no filter.
    public static func leSetScanParameters(active: Bool, interval: UInt16, window: UInt16) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.leSetScanParameters)
        command.append(active ? 1 : 0)
        command.append(littleEndian: UInt64(interval), count: 2)
        command.append(littleEndian: UInt64(min(window, interval)), count: 2)
        command.append(0x01)                                   // Own_Address_Type: random
        command.append(0x00)                                   // Scanning_Filter_Policy: accept all
        return command
    }

    /// LE Set Scan Enable (§7.8.11).
    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.leSetScanEnable)
        command.append(enable ? 1 : 0)
        command.append(filterDuplicates ? 1 : 0)
        return command
    }

    /// LE Set Advertising Set Random Address (§7.8.52).
    public static func leSetAdvertisingSetRandomAddress(handle: UInt8, _ address: BLEAddress) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.leSetAdvertisingSetRandomAddress)
        command.append(handle)
        command.append(address)
        return command
    }

    /// LE Set Extended Advertising Parameters, v1 (§7.8.53, 25 bytes): a legacy-PDU set from its
    /// random address on all three channels at `interval` (0.625 ms units, 3 bytes), the LE 1M
    /// PHY (required for legacy PDUs), `txPower` dBm requested (0x7F: no preference).
    public static func leSetExtendedAdvertisingParameters(handle: UInt8, type: LegacyAdvertisingType,
                                                          interval: UInt32, txPower: Int8) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.leSetExtendedAdvertisingParameters)
        let units = UInt64(min(max(interval, 0x20), 0xFF_FFFF))
        command.append(handle)                                  // Advertising_Handle
        command.append(littleEndian: UInt64(type.extendedProperties), count: 2)
        command.append(littleEndian: units, count: 3)          // Primary_Advertising_Interval_Min
        command.append(littleEndian: units, count: 3)          // Primary_Advertising_Interval_Max
        command.append(0x07)                                   // Primary_Advertising_Channel_Map
        command.append(0x01)                                   // Own_Address_Type: random
        command.append(0x00)                                   // Peer_Address_Type
        command.append(littleEndian: 0, count: 6)              // Peer_Address
        command.append(0x00)                                   // Advertising_Filter_Policy
        command.append(UInt8(bitPattern: txPower))             // Advertising_TX_Power
        command.append(0x01)                                   // Primary_Advertising_PHY: LE 1M
        command.append(0x00)                                   // Secondary_Advertising_Max_Skip
        command.append(0x01)                                   // Secondary_Advertising_PHY: LE 1M
        command.append(handle & 0x0F)                          // Advertising_SID
        command.append(0x00)                                   // Scan_Request_Notification_Enable
        return command
    }

    /// LE Set Extended Advertising Data (§7.8.54) or Scan Response Data (§7.8.55): the whole
    /// data in one command (operation 0x03 "complete", which a legacy-PDU set requires), and the
    /// controller asked not to fragment it.
    public static func leSetExtendedAdvertisingData(handle: UInt8, _ data: AdvertisingData,
                                                    scanResponse: Bool = false) -> HCICommand {
        var command = HCICommand(opcode: scanResponse ? HCIOpcode.leSetExtendedScanResponseData
                                                      : HCIOpcode.leSetExtendedAdvertisingData)
        command.append(handle)
        command.append(0x03)                                   // Operation: complete data
        command.append(0x01)                                   // Fragment_Preference: do not fragment
        command.append(UInt8(data.count))
        for index in 0..<data.count { command.append(data[index]) }
        return command
    }

    /// LE Set Extended Advertising Enable (§7.8.56) for one set, advertising until disabled
    /// (duration 0, no event limit).
    public static func leSetExtendedAdvertisingEnable(_ enable: Bool, handle: UInt8) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.leSetExtendedAdvertisingEnable)
        command.append(enable ? 1 : 0)
        command.append(1)                                      // Num_Sets
        command.append(handle)
        command.append(littleEndian: 0, count: 2)              // Duration: until disabled
        command.append(0)                                      // Max_Extended_Advertising_Events: no limit
        return command
    }

    /// LE Remove Advertising Set (§7.8.59).
    public static func leRemoveAdvertisingSet(handle: UInt8) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.leRemoveAdvertisingSet)
        command.append(handle)
        return command
    }

    /// LE Clear Advertising Sets (§7.8.60).
    public static func leClearAdvertisingSets() -> HCICommand { HCICommand(opcode: HCIOpcode.leClearAdvertisingSets) }

    /// LE Set Extended Scan Parameters (§7.8.64) on the LE 1M PHY only.
    public static func leSetExtendedScanParameters(active: Bool, interval: UInt16, window: UInt16) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.leSetExtendedScanParameters)
        command.append(0x01)                                   // Own_Address_Type: random
        command.append(0x00)                                   // Scanning_Filter_Policy
        command.append(0x01)                                   // Scanning_PHYs: LE 1M
        command.append(active ? 1 : 0)
        command.append(littleEndian: UInt64(interval), count: 2)
        command.append(littleEndian: UInt64(min(window, interval)), count: 2)
        return command
    }

    /// LE Set Extended Scan Enable (§7.8.65), continuous (duration and period 0).
    public static func leSetExtendedScanEnable(_ enable: Bool, filterDuplicates: Bool) -> HCICommand {
        var command = HCICommand(opcode: HCIOpcode.leSetExtendedScanEnable)
        command.append(enable ? 1 : 0)
        command.append(filterDuplicates ? 1 : 0)
        command.append(littleEndian: 0, count: 2)              // Duration
        command.append(littleEndian: 0, count: 2)              // Period
        return command
    }
}
