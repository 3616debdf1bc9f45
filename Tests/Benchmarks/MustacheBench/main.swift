// MustacheBench — renders a realistic ~3 KB dashboard page (layout parent with blocks,
// a partial per tile in a loop of 3, a ledger table of 20 rows) 100,000 times and reports
// renders per second. Build and run in release: `swift run -c release MustacheBench`.
import Foundation
import Mustache

let templates: [String: String] = [
    "layout": """
    <!DOCTYPE html>
    <html lang="en">
    <head>
      <meta charset="utf-8">
      <title>{{$title}}Tip Jar{{/title}} · Tip Jar Dashboard</title>
      <link rel="stylesheet" href="/static/app.css">
    </head>
    <body>
      <header class="top">
        <a class="brand" href="/">Tip Jar</a>
        <nav>{{#nav}}<a href="{{href}}"{{#active}} class="active"{{/active}}>{{label}}</a>{{/nav}}</nav>
      </header>
      <main>
        {{$body}}<p>Nothing here.</p>{{/body}}
      </main>
      <footer>{{$footer}}Tip Jar Dashboard · {{year}}{{/footer}}</footer>
    </body>
    </html>

    """,
    "partials/tile": """
    <section class="tile{{#highlight}} tile--highlight{{/highlight}}">
      <h2>{{title}}</h2>
      <p class="amount">{{amount}}</p>
      <p class="note">{{note}}</p>
      {{^trend}}<span class="muted">no change</span>{{/trend}}
    </section>

    """,
    "pages/overview": """
    {{<layout}}
    {{$title}}Overview for {{user.name}}{{/title}}
    {{$body}}
    <h1>Welcome back, {{user.name}}</h1>
    <div class="tiles">
      {{#tiles}}
      {{>partials/tile}}
      {{/tiles}}
    </div>
    <table class="ledger">
      <thead><tr><th>Date</th><th>Product</th><th>Customer</th><th>Amount</th><th>Status</th></tr></thead>
      <tbody>
        {{#ledger}}
        <tr><td>{{date}}</td><td>{{product}}</td><td>{{customer}}</td><td>{{amount}}</td><td>{{#refunded}}Refunded{{/refunded}}{{^refunded}}Paid{{/refunded}}</td></tr>
        {{/ledger}}
      </tbody>
    </table>
    {{/body}}
    {{/layout}}
    """,
]

let data: MustacheValue = [
    "year": 2025,
    "user": ["name": "Ada & Co"],
    "nav": [
        ["href": "/", "label": "Overview", "active": true],
        ["href": "/install", "label": "Install", "active": false],
        ["href": "/ledger", "label": "Ledger", "active": false],
    ],
    "tiles": [
        ["title": "Today", "amount": "$12.99", "note": "3 tips", "highlight": true, "trend": "+2"],
        ["title": "This week", "amount": "$84.50", "note": "21 tips", "highlight": false, "trend": nil],
        ["title": "All time", "amount": "$1,204.00", "note": "311 tips", "highlight": false, "trend": "+9"],
    ],
    "ledger": .array(
        (0..<20).map { i in
            [
                "date": .string("2025-01-\(String(format: "%02d", i + 1))"),
                "product": .string(i % 3 == 0 ? "Large Tip" : "Small <Tip>"),
                "customer": .string("c\(i)@example.com"),
                "amount": .string(i % 3 == 0 ? "$9.99" : "$0.99"),
                "refunded": .bool(i % 7 == 0),
            ]
        }),
]

let library = try MustacheLibrary(templates: templates)
guard let page = library.template(named: "pages/overview") else { fatalError("missing page") }
let sample = page.render(value: data)
print("page size: \(sample.utf8.count) bytes")

let iterations = 100_000
var totalBytes = 0
let start = DispatchTime.now().uptimeNanoseconds
for _ in 0..<iterations {
    totalBytes &+= page.render(value: data).utf8.count
}
let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
print("typed MustacheValue: \(iterations) renders in \(String(format: "%.3f", seconds)) s = \(Int(Double(iterations) / seconds)) renders/s (\(totalBytes) bytes)")

// The same page from JSONSerialization output (converted to MustacheValue on each render).
let jsonData = try JSONSerialization.data(
    withJSONObject: [
        "year": 2025, "user": ["name": "Ada & Co"],
        "nav": [["href": "/", "label": "Overview", "active": true]],
        "tiles": [
            ["title": "Today", "amount": "$12.99", "note": "3 tips", "highlight": true, "trend": "+2"],
            ["title": "This week", "amount": "$84.50", "note": "21 tips", "highlight": false],
            ["title": "All time", "amount": "$1,204.00", "note": "311 tips", "highlight": false, "trend": "+9"],
        ],
        "ledger": (0..<20).map { i in
            [
                "date": "2025-01-\(i + 1)", "product": "Tip", "customer": "c\(i)@example.com",
                "amount": "$0.99", "refunded": i % 7 == 0,
            ] as [String: Any]
        },
    ] as [String: Any])
let json = try JSONSerialization.jsonObject(with: jsonData)
let anyIterations = 20_000
let anyStart = DispatchTime.now().uptimeNanoseconds
for _ in 0..<anyIterations {
    totalBytes &+= page.render(json).utf8.count
}
let anySeconds = Double(DispatchTime.now().uptimeNanoseconds - anyStart) / 1e9
print("JSONSerialization Any: \(anyIterations) renders in \(String(format: "%.3f", anySeconds)) s = \(Int(Double(anyIterations) / anySeconds)) renders/s")
