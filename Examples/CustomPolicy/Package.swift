// swift-tools-version:6.0
import Foundation
import PackageDescription

// A researcher's own package: its own policy, run through bgbench's harness, with bgbench
// as a versioned dependency (Examples/README.md). BGBENCH_URL names the repository; by
// default it is the checkout this example sits in, which needs the tag (`git tag 0.1.0`).
// Examples/build.sh builds it against a tagged temporary clone of HEAD.
let bgbenchURL =
    Context.environment["BGBENCH_URL"]
    ?? URL(fileURLWithPath: Context.packageDirectory + "/../..").standardizedFileURL.absoluteString
// SwiftPM names a package by its URL's last path component, without `.git`.
let bgbench = URL(string: bgbenchURL)!.deletingPathExtension().lastPathComponent

let package = Package(
    name: "CustomPolicy",
    dependencies: [.package(url: bgbenchURL, from: "0.1.0")],
    targets: [
        .executableTarget(
            name: "custom-policy",
            dependencies: [
                .product(name: "BGBench", package: bgbench),
                .product(name: "BGHarness", package: bgbench),
            ], path: "Sources/CustomPolicy")
    ]
)
