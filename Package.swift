// swift-tools-version: 6.0
// Nearcast: the firmware core of a venue set-top box that broadcasts rotating event tokens
// over near-ultrasonic audio and BLE. See docs/developer.md ("Architecture").
import PackageDescription
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// libgpiod 2.x (Debian 13, Raspberry Pi OS trixie) has another API than 1.6 (Debian 12): the
/// LED driver is built for the one whose gpiod.h is installed. NEARCAST_GPIOD_API=1|2 overrides
/// the look (a header elsewhere, a sysroot).
func libgpiodAPI() -> Int {
    if let forced = ProcessInfo.processInfo.environment["NEARCAST_GPIOD_API"], let api = Int(forced) { return api }
    for header in ["/usr/include/gpiod.h", "/usr/local/include/gpiod.h"] {
        if let data = FileManager.default.contents(atPath: header) {
            return String(decoding: data, as: UTF8.self).contains("gpiod_request_config_new") ? 2 : 1
        }
    }
    return 1
}
let gpiodSettings: [SwiftSetting] = libgpiodAPI() == 2 ? [.define("NEARCAST_GPIOD_V2")] : []

let package = Package(
    name: "nearcast",
    products: [
        .executable(name: "nearcast", targets: ["nearcast"]),
        .library(name: "NearcastCore", targets: ["NearcastCore"]),
        // The Nearby-style API (MessageManager, Publication, Subscription, Permission, Message)
        // for Swift programs on the box; `Examples/NearbyHello` shows it in use.
        .library(name: "NearcastNearby", targets: ["NearcastNearby"]),
        // systemd's notify protocol (READY, STATUS, RELOADING, STOPPING, WATCHDOG) for the box
        // and the hub alike: Glibc only, no Foundation, nothing else of the box's.
        .library(name: "NearcastSystemd", targets: ["NearcastSystemd"]),
    ],
    dependencies: [
        // Tests only: counts heap allocations to prove the hot paths allocate nothing.
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", from: "1.6.1"),
    ],
    targets: [
        // C libraries, seen through module maps. Each shim.h holds only static inline wrappers
        // for the macros and variadic functions Swift cannot import.
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // No library: the version string tools/package/release stamps in with -Xcc -DNEARCAST_VERSION.
        .systemLibrary(name: "CBuildStamp"),

        // Pure Swift: no Foundation, no C modules, no I/O, no clock reads.
        .target(name: "NearcastCore"),
        // The only code that touches the operating system.
        .target(
            name: "NearcastDrivers",
            dependencies: ["NearcastCore", "CALSA", "CGPIOD", "CBluetooth", "CCrypto", "CBuildStamp"],
            swiftSettings: gpiodSettings
        ),
        // sd_notify for both programs; depends on nothing, so the hub takes it without the drivers.
        .target(name: "NearcastSystemd"),
        // Nearby Messages' shape over the pure scheduler: no I/O, no Foundation.
        .target(name: "NearcastNearby", dependencies: ["NearcastCore"]),
        // Composition: boards, devices, daemon loop, consoles, commands.
        .target(
            name: "NearcastApp",
            dependencies: [
                "NearcastCore", "NearcastNearby", "NearcastDrivers", "NearcastBench", "NearcastSystemd",
            ]
        ),
        // A program on the box using the Nearby-style API on the simulated board's devices
        // (built by the tests, run by an end-to-end test).
        .executableTarget(name: "nearby-hello", dependencies: ["NearcastNearby", "NearcastDrivers"],
                          path: "Examples/NearbyHello"),
        // The modem's test bench: channel simulator, background sounds, benchmark runners.
        // Pure Swift on top of the core; used by `nearcast bench` and the tests.
        .target(name: "NearcastBench", dependencies: ["NearcastCore"]),
        .executableTarget(
            name: "nearcast", dependencies: ["NearcastApp"],
            // A GNU build ID in every build (`nearcast version` prints it; crash reports and the
            // .debug file are matched by it): swift.org's toolchain adds one, Debian 13's does not.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--build-id=sha1"])]
        ),

        .testTarget(name: "NearcastCoreTests", dependencies: ["NearcastCore", "NearcastBench"]),
        // Zero-allocation proofs for the hot paths (modem, scheduler tick, LED patterns, line
        // editor, the audio drivers' threads), counting mallocs on one thread.
        .testTarget(
            name: "AllocationTests",
            dependencies: ["NearcastCore", "NearcastDrivers", "NearcastNearby",
                           .product(name: "MallocInterposerSwift", package: "malloc-interposer")]
        ),
        .testTarget(name: "NearcastDriversTests", dependencies: ["NearcastDrivers"]),
        // A stand-in for systemd's notification socket, for the two test targets that play systemd.
        .target(name: "NotifySocketSupport", path: "Tests/NotifySocketSupport"),
        .testTarget(name: "NearcastSystemdTests", dependencies: ["NearcastSystemd", "NotifySocketSupport"]),
        // The modem through the simulated channel, and the simulator itself.
        .testTarget(name: "ModemChannelTests", dependencies: ["NearcastCore", "NearcastBench"]),
        .testTarget(name: "NearcastNearbyTests", dependencies: ["NearcastNearby", "NearcastDrivers"]),
        .testTarget(name: "NearcastAppTests", dependencies: ["NearcastApp", "NearcastNearby"]),
        // Drives the built `nearcast` binary as a separate process.
        .testTarget(name: "EndToEndTests", dependencies: ["nearcast", "nearby-hello", "NotifySocketSupport"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

// The box's fuzz targets that need the composition around the parsers (fuzz/app, run by
// tools/check/fuzz; the pure parsers' targets in fuzz/targets are built without SwiftPM): only when
// tools/check/fuzz builds them, in their own scratch path (.build-fuzz) with NEARCAST_FUZZ=1.
// NearcastApp and NearcastCore are then compiled with libFuzzer's coverage instrumentation and
// AddressSanitizer, and each target links compiler-rt's libFuzzer without its main
// (NEARCAST_FUZZ_RUNTIME), calling its driver from a main that sets the console up first.
if Context.environment["NEARCAST_FUZZ"] == "1" {
    let runtime = Context.environment["NEARCAST_FUZZ_RUNTIME"] ?? "libclang_rt.fuzzer_no_main-x86_64.a"
    for target in package.targets where ["NearcastApp", "NearcastCore"].contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=fuzzer,address"])]
    }
    package.targets += [
        .systemLibrary(name: "CLibFuzzer", path: "fuzz/app/CLibFuzzer"),
        .executableTarget(
            name: "console",
            dependencies: ["NearcastApp", "NearcastCore", "NearcastDrivers", "NearcastNearby", "CLibFuzzer"],
            path: "fuzz/app/console",
            swiftSettings: [.unsafeFlags(["-sanitize=address"])],
            linkerSettings: [.unsafeFlags(["-sanitize=address", "-Xlinker", runtime, "-lstdc++"])]
        ),
    ]
}
