/// fuzz: terminal bytes typed into the box's console (the line editor, the interpreter and every command's handler, on a fresh box for the sim board in a temporary state directory): no crash or trap, the row after every reply starts with the session's current prompt (the command prompt or a PIN question), the terminal sees no control byte but CR, LF, BEL and escape sequences, and every settings file the console saved reads back
import CLibFuzzer
import Foundation
import NearcastCore
import NearcastDrivers
import NearcastNearby
@testable import NearcastApp

/// libFuzzer's driver with a main of our own; every input is typed into a console of its own
/// (a fresh box and state directory), so that a finding replays from its input alone.
@main
enum ConsoleFuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, typeInput))
    }
}

private func typeInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let console: Console
    do {
        console = try Console.make()
    } catch {
        fail("setting up the console failed: \(error)")
    }
    // A line that ends the input is submitted, as a technician's Enter would.
    console.type(Array(UnsafeBufferPointer(start: data, count: size)) + [0x0D])
    return 0
}

/// The console under test: a session on a fuzz transport, over a fresh box for the sim board.
final class Console {
    let directory: URL
    let box: Box
    let transport = MemoryConsoleTransport(name: "fuzz console")
    let session: ConsoleSession

    init(directory: URL, box: Box, session: (MemoryConsoleTransport) -> ConsoleSession) {
        self.directory = directory
        self.box = box
        self.session = session(transport)
    }

    static func make() throws -> Console {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-console-fuzz-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        let stateDirectory = try StateDirectory(path: directory.path)
        let boards = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../boards")
        let board = try BoardLoader.load(boards.appendingPathComponent("sim.json5").standardizedFileURL.path)
        let encoder = try MultiBandEncoder(sampleRate: 48_000)
        let config = SchedulerConfiguration(ticksPerSecond: 48_000, audioBurstLength: Int64(encoder.rate.burstSamples))
        let manager = MessageManager(configuration: config, clock: BeaconClock(startingAt: 500), cipher: OpenSSLAES128(), seed: 3)
        let devices = try Devices.open(board, state: stateDirectory, log: { _ in })
        let box = Box(board: board, stateDirectory: stateDirectory, manager: manager, encoder: encoder, devices: devices,
                      strategy: Strategy(mediums: .both, mode: .broadcast), listenMediums: .both,
                      advertising: AdvertisingSettings(txPower: -12, intervalMilliseconds: 100), hub: nil,
                      reservation: BeaconClockReservation(saved: 500), log: { _ in })
        let interpreter = ConsoleInterpreter(box: box)
        let console = Console(directory: directory, box: box) { transport in
            ConsoleSession(port: transport, table: interpreter.table, colour: false, canClose: false) { line, session in
                interpreter.run(line, session: session)
            }
        }
        console.session.service()
        _ = console.transport.takeOutput()
        return console
    }

    func type(_ bytes: [UInt8]) {
        transport.input += bytes
        var rounds = 0
        while !transport.input.isEmpty {
            session.service()
            rounds += 1
            if rounds > bytes.count + 16 { fail("the session stopped reading: \(transport.input.count) bytes left") }
        }
        session.service()
        let output = transport.takeOutput()
        check(output, typed: bytes)
        checkSavedSettings()
    }

    /// What the terminal receives: printable text, line ends, the bell and escape sequences;
    /// never a control byte a reply smuggled in (a name or message echoed back raw).
    private func check(_ output: [UInt8], typed: [UInt8]) {
        // One pass: every byte outside an escape sequence must be printable or CR, LF, BEL;
        // what remains without the sequences, CR and BEL is what the rows show.
        var visible: [UInt8] = []
        var inSequence = false
        for byte in output {
            if inSequence {
                if (0x40...0x7E).contains(byte) && byte != UInt8(ascii: "[") { inSequence = false }
                continue
            }
            switch byte {
            case 0x1B: inSequence = true
            case 0x0D, 0x07: break
            case 0x0A, 0x20...0x7E, 0x80...: visible.append(byte)
            default: fail("the console wrote control byte \(byte) after \(String(decoding: typed, as: UTF8.self).debugDescription)")
            }
        }
        // After a reply the row being typed on starts with a prompt (the line typed after it may
        // still be open: an escape sequence can swallow the final Enter).
        if let newline = visible.lastIndex(of: 0x0A) {
            let row = String(decoding: visible[(newline + 1)...], as: UTF8.self)
            let prompt = session.currentPrompt.description     // "nearcast> ", or a PIN's question
            if !row.hasPrefix(prompt) {
                fail("no prompt after the reply to \(String(decoding: typed, as: UTF8.self).debugDescription): \(row.prefix(200).debugDescription)")
            }
        }
    }

    /// The box must read back every settings file it writes (it starts from it).
    private func checkSavedSettings() {
        let file = directory.appendingPathComponent(SavedSettings.fileName)
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return }
        do {
            _ = try SavedSettings.parse(text, file: file.path)
        } catch {
            fail("the console saved settings it cannot read back (\(error)):\n\(text)")
        }
    }
}

private func fail(_ message: String) -> Never {
    fatalError("fuzz: \(message)")
}
