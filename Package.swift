// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "TipJarDashboard",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "TipJar", targets: ["TipJar"]),
        .library(name: "SQLiteDatabase", targets: ["SQLiteDatabase"]),
        .library(name: "TipJarSQLite", targets: ["TipJarSQLite"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "Mustache", targets: ["Mustache"]),
        .library(name: "TipJarDashboard", targets: ["TipJarDashboard"]),
        .library(name: "TipJarScenario", targets: ["TipJarScenario"]),
        .executable(name: "tipjar", targets: ["tipjar"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // glibc's <malloc.h> (mallopt, malloc_trim), which the Glibc module does not export.
        .systemLibrary(name: "CMalloc"),
        // epoll, eventfd and accept4 from the C library's headers, for HTTPServer's event loop.
        .target(name: "CHTTPSystem"),
        .target(
            name: "TipJar",
            exclude: ["StoreKitFidelity.md", "README.md"],
            resources: [.copy("Resources/TipProducts.storekit")]
        ),
        // SQLite for a server, with nothing of the tip jar: connections, statements, migrations, the serialized writer
        // with group commit, the readers, the checkpointer, file checks.
        .target(name: "SQLiteDatabase", dependencies: ["CSQLite"]),
        .target(name: "TipJarSQLite", dependencies: ["TipJar", "SQLiteDatabase", "CSQLite"], exclude: ["README.md"]),
        .target(
            name: "HTTPServer",
            dependencies: [
                .target(name: "CHTTPSystem", condition: .when(platforms: [.linux])),
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
            ],
            exclude: ["README.md"]
        ),
        .target(name: "Mustache"),
        .target(name: "TipJarScenario", dependencies: ["TipJar"]),
        .target(
            name: "TipJarDashboard",
            dependencies: ["TipJar", "HTTPServer", "Mustache", "TipJarScenario"],
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "tipjar",
            dependencies: ["TipJar", "TipJarSQLite", "SQLiteDatabase", "CSQLite", "TipJarDashboard", "HTTPServer", "CMalloc", "TipJarScenario"],
            exclude: ["README.md"]
        ),
        // The domain rules every TipJarStorage keeps, run by TipJarSQLiteTests on a new SQLite file per rule.
        .target(name: "TipJarStorageRules", dependencies: ["TipJar"], path: "Tests/TipJarStorageRules"),
        // What the tests share: `eventually(timeout:_:)`, `DelayGate`, the raw HTTP/1.1 client, `ChildProcess`.
        .target(name: "TestSupport", dependencies: ["HTTPServer"], path: "Tests/TestSupport"),
        .testTarget(name: "TipJarTests", dependencies: ["TipJar"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "TipJarSQLiteTests",
            dependencies: ["TipJarSQLite", "SQLiteDatabase", "TipJar", "CSQLite", "TipJarStorageRules", "TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(name: "MustacheTests", dependencies: ["Mustache"], resources: [.copy("Spec")]),
        .testTarget(
            name: "TipJarDashboardTests",
            dependencies: [
                "TipJarDashboard", "TipJar", "TipJarSQLite", "SQLiteDatabase", "HTTPServer", "Mustache", "TipJarScenario", "TestSupport",
            ],
            exclude: ["Golden"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
