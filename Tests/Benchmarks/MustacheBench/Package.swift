// swift-tools-version:6.0
// The Mustache render benchmark, a package of its own so that the product's
// Package.swift stays free of benchmark targets. It depends on the main package by path and
// builds only its `Mustache` library, in this folder's own .build.
//
//   cd Tests/Benchmarks/MustacheBench && swift run -c release MustacheBench
//   (or Tests/Benchmarks/render_bench.sh)
import Foundation
import PackageDescription

/// SwiftPM names a path dependency by its folder's last component (lowercased), so the
/// identity of the main package depends on where the repository was cloned.
let mainPackageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../..").standardizedFileURL
let mainPackageIdentity = mainPackageFolder.lastPathComponent.lowercased()

let package = Package(
    name: "MustacheBench",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: "../../..")
    ],
    targets: [
        .executableTarget(
            name: "MustacheBench",
            dependencies: [.product(name: "Mustache", package: mainPackageIdentity)],
            path: ".",
            exclude: ["Package.swift"],
            sources: ["main.swift"]
        )
    ],
    swiftLanguageModes: [.v6]
)
