import Glibc
import NearcastCore
import XCTest
@testable import NearcastDrivers

final class BluetoothErrorTests: XCTestCase {
    /// Each errno the HCI transports can meet lands in the LED table's row for it.
    func testErrnosSortIntoTheLEDStates() {
        func health(_ code: Int32) -> BluetoothHealth { BluetoothError(SystemError(code: code, operation: "open")).health }
        XCTAssertEqual(health(EPERM), .permissionDenied)
        XCTAssertEqual(health(EACCES), .permissionDenied)
        XCTAssertEqual(health(ENETDOWN), .poweredOff)
        XCTAssertEqual(health(ERFKILL), .poweredOff)
        XCTAssertEqual(health(ENODEV), .noAdapter)
        XCTAssertEqual(health(EAFNOSUPPORT), .noAdapter)
        XCTAssertEqual(health(ENOENT), .noAdapter)
        XCTAssertEqual(BluetoothError(.refused(opcode: HCIOpcode.leSetAdvertisingParameters, status: 0x12), "hci0").description,
                       "controller refused LE Set Advertising Parameters (0x2006): 0x12 Invalid HCI Command Parameters (hci0)")
        XCTAssertEqual(BluetoothError(.timeout(opcode: HCIOpcode.reset), "no answer").health, .noAdapter)
    }

    /// This machine's kernel has no Bluetooth: the raw socket says so, and it reads as
    /// "no bluetooth adapter" (the virtual board in qemu has hci_vhci for the working path).
    func testTheRawSocketWithoutKernelBluetoothIsNoAdapter() throws {
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), 1)
        if probe >= 0 { close(probe); throw XCTSkip("this kernel has Bluetooth sockets") }
        XCTAssertThrowsError(try HCISocketTransport(index: 0)) { error in
            let failure = error as? BluetoothError
            XCTAssertEqual(failure?.kind, .noAdapter)
            XCTAssertEqual("\(error)", "no bluetooth adapter: open a Bluetooth HCI socket hci0: Address family not supported by protocol (errno 97)")
        }
    }

    func testAMissingUARTIsNoAdapter() {
        XCTAssertThrowsError(try H4SerialTransport(path: "/dev/ttyNoSuchUART", baud: 115_200, flowControl: true)) { error in
            XCTAssertEqual((error as? BluetoothError)?.kind, .noAdapter)
            XCTAssertTrue("\(error)".contains("/dev/ttyNoSuchUART"), "\(error)")
        }
    }
}
