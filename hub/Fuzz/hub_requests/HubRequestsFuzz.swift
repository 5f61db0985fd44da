/// fuzz: an HTTP request to every route of the hub (the method and path, its path parameters, its query, the key it carries, its body) answered by the hub's router in process over a SQLite file: no crash, no trap, never a 5xx (an unexpected error is a 500, which is the finding), every refusal of the API a 4xx in its error shape, and a refused request adds or removes no row
import CLibFuzzer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
@testable import NearcastHub
import NIOCore
import NIOEmbedded

/// libFuzzer's driver with a main of our own: the hub (a project, a beacon with an attachment,
/// a show) is set up once, then every input is one request to the router, without a socket.
@main
enum HubRequestsFuzz {
    static func main() {
        switch blocking({ try await World.make() }) {
        case .success(let world): World.shared = world
        case .failure(let error): fatalError("fuzz: setting up the hub failed: \(error)")
        }
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneRequest))
    }
}

/// One input: `route` (byte % routes), then fields split at 0xFF: the first and second path
/// parameter, the query, the key (first byte: 0 none, 1 the public key, 2 the secret key, 3 the
/// rest as X-Api-Key, 4 the rest as `?key=`), the body.
private func fuzzOneRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let request = FuzzRequest(bytes, world: World.shared)
    let outcome = blocking { try await World.shared.answer(request) }
    switch outcome {
    case .success(let answer):
        check(answer, request)
    case .failure(let error):
        fail("\(request): the router threw \(type(of: error)) (a bare 500 to the client): \(error)")
    }
    return 0
}

private func check(_ answer: Answer, _ request: FuzzRequest) {
    if answer.status >= 500 {
        fail("\(request): answered \(answer.status) \(answer.body.prefix(300))")
    }
    // The pages (`/j/CODE`, the listener's files) answer a browser, in HTML; the API answers
    // every refusal in the Proximity Beacon API's error shape, naming what and where.
    if answer.status >= 400 && request.uri.hasPrefix("/v1") {
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
              let error = object["error"] as? [String: Any], error["code"] as? Int == answer.status,
              let message = error["message"] as? String, !message.isEmpty, error["status"] is String
        else {
            fail("\(request): \(answer.status) without the API's error JSON: \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
        }
        if answer.rowsBefore != answer.rowsAfter {
            fail("\(request): refused with \(answer.status) (\(message)) but rows were added or removed: \(answer.rowsBefore) before, \(answer.rowsAfter) after")
        }
    }
}

private func fail(_ message: String) -> Never {
    fatalError("fuzz: \(message)")
}

/// Runs `body` on the concurrency pool and waits for it: libFuzzer calls the target synchronously.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let box = ResultBox<T>()
    Task.detached {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        box.done.signal()
    }
    box.done.wait()
    return box.result!
}

/// The result handed from the task to the waiting thread (the semaphore orders the accesses).
final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
    let done = DispatchSemaphore(value: 0)
}
