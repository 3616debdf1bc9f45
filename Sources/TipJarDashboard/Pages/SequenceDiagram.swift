import Foundation
import Mustache

/// A sequence diagram of one transaction's life, drawn on the server as SVG (no JavaScript): three lanes (the app,
/// the simulated App Store, the app's `Transaction.updates` listener), and a fourth, the developer's server, when
/// the App Store sent it something about the transaction; one row per step, an arrow with its label
/// between two lanes or a note on one, a heart where a delivery added one, a crossed grey heart where one did not,
/// a warning mark on each row where a StoreKit trap struck, and a dashed arrow for each failed attempt to send an
/// App Store Server Notification.
///
/// This type is the pure part: it lays the steps out in a 360-unit-wide `viewBox` (so it reads at 390 px: the SVG is
/// `width="100%"` and 13-unit text is about 12 CSS px there; four lanes are closer together than three, ``Layout``)
/// and answers the values
/// `Templates/partials/sequence-diagram.mustache` draws. The template writes every text (labels, titles, a product ID
/// or a label a person typed) through Mustache's escaping, so no text can become markup; colours are CSS classes
/// in `Public/app.css`, because the Content-Security-Policy (`SecurityHeaders`) refuses inline styles. The
/// accessible name is the SVG's `<title>`, its description the `<desc>` summary, and the steps are also an ordered
/// list beside the drawing (WCAG 2.2 success criterion 1.1.1, Non-text Content).
struct SequenceDiagram: Sendable, Equatable {
    /// A vertical lane: who sends or handles a step.
    enum Lane: Int, Sendable, CaseIterable {
        /// The app: `Product.purchase()`, the purchase result, Restore.
        case app
        /// The simulated App Store: the sheet, charges, Ask to Buy, refunds.
        case store
        /// The app's `Transaction.updates` listener (and the launch's redelivery of unfinished transactions).
        case listener
        /// The developer's server: what the App Store sent it (App Store Server Notifications V2,
        /// https://developer.apple.com/documentation/appstoreservernotifications) and what it sent back (Send
        /// Consumption Information, https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information).
        case server

        /// The lane's heading.
        var name: String {
            switch self {
            case .app: "App"
            case .store: "App Store"
            case .listener: "Listener"
            case .server: "Your server"
            }
        }
    }

    /// Where the lanes stand: three as wide apart as the labels of a device's life want, or four closer together
    /// when the server's lane is drawn, its notes still clear of the marks column (``heartBesideTrapX``).
    struct Layout: Sendable, Equatable {
        /// The lanes drawn, left to right.
        var lanes: [Lane]
        /// The first lane's centre and the distance between two centres, in `viewBox` units.
        var firstX: Int, spacing: Int
        /// Half the width of a note's box and of a lane's heading.
        var noteHalfWidth: Int

        /// App, App Store and Listener: the diagram of a transaction the App Store told no server about.
        static let threeLanes = Layout(lanes: [.app, .store, .listener], firstX: 52, spacing: 110, noteHalfWidth: 50)
        /// With the server's lane: its note ends at 326, left of the marks column.
        static let fourLanes = Layout(lanes: Lane.allCases, firstX: 40, spacing: 82, noteHalfWidth: 40)

        /// The layout that draws `steps`: four lanes when one of them reaches the server.
        static func drawing(_ steps: [Step]) -> Layout {
            steps.contains { $0.from == .server || $0.to == .server } ? fourLanes : threeLanes
        }

        /// A lane's centre, in `viewBox` units.
        func x(_ lane: Lane) -> Int { firstX + (lanes.firstIndex(of: lane) ?? lane.rawValue) * spacing }
    }

    /// How an attempt to send an App Store Server Notification went, for the arrow that draws it.
    enum AttemptMark: String, Sendable {
        /// Not answered with HTTP 200–206 (Apple's `sendAttemptResult` other than `SUCCESS`): a dashed arrow.
        case failed
        /// Under way, or not made yet: a dotted arrow.
        case underWay = "under-way"
    }

    /// What a step did to the hearts.
    enum HeartMark: String, Sendable {
        /// The delivery added one heart.
        case added
        /// The step could have added a heart and did not (a duplicate, a refund, five hearts already, a decline…).
        case notAdded
    }

    /// One row: an arrow from `from` to `to`, or a note on one lane when they are the same.
    struct Step: Sendable, Equatable {
        /// Who sends (or, for a note, who handles) the step.
        var from: Lane
        /// Who receives it; the same lane for a note.
        var to: Lane
        /// The short text drawn on the row (wrapped to the room it has).
        var label: String
        /// The heart mark drawn at the row's end, if the step decided a heart.
        var heart: HeartMark?
        /// Whether a StoreKit trap struck here (drawn with a warning mark and the trap colours).
        var isTrap: Bool
        /// A notification attempt that failed or has not ended (a successful one has none).
        var attempt: AttemptMark?

        /// Creates a step.
        init(
            _ from: Lane, _ to: Lane, _ label: String, heart: HeartMark? = nil, isTrap: Bool = false,
            attempt: AttemptMark? = nil
        ) {
            self.from = from
            self.to = to
            self.label = label
            self.heart = heart
            self.isTrap = isTrap
            self.attempt = attempt
        }

        /// The step as one sentence of the text alternative, e.g. `App → App Store: purchase().`
        var sentence: String {
            var text = from == to ? "\(from.name): \(label)" : "\(from.name) → \(to.name): \(label)"
            if isTrap { text += " (trap)" }
            switch attempt {
            case .failed?: text += " (failed)"
            case .underWay?: text += " (not ended)"
            case nil: break
            }
            switch heart {
            case .added: text += "; one heart added"
            case .notAdded: text += "; no heart added"
            case nil: break
            }
            return text + "."
        }
    }

    /// The diagram's accessible name (its `<title>`).
    var title: String
    /// The rows, in the order they happened.
    var steps: [Step]

    /// The `viewBox` width: narrow enough that the text stays readable on a 390 px screen.
    static let width = 360
    /// Text size and line height of the labels, in `viewBox` units.
    static let fontSize = 13, lineHeight = 15
    /// A conservative width of one character of 13-unit system-ui text, in tenths of a unit, for wrapping.
    static let characterWidthTenths = 70
    /// Where the lane headings end and the rows start.
    static let rowsTop = 36
    /// The height of the legend under the rows.
    static let legendHeight = 30
    /// Half the width of a note's box in the three lanes' layout.
    static let noteHalfWidth = Layout.threeLanes.noteHalfWidth
    /// The centres of the marks column: one mark, or a heart and a trap mark side by side.
    static let markX = 343, heartBesideTrapX = 334, trapBesideHeartX = 352

    /// The summary the `<desc>` holds: how many steps, hearts added, deliveries that added none, and the traps.
    var summary: String {
        let added = steps.filter { $0.heart == .added }.count
        let notAdded = steps.filter { $0.heart == .notAdded }.count
        let traps = steps.filter(\.isTrap).map(\.label)
        var text = "\(steps.count) step\(steps.count == 1 ? "" : "s"). "
        text += added == 1 ? "One heart added" : "\(added == 0 ? "No" : String(added)) hearts added"
        if notAdded > 0 { text += "; \(notAdded) step\(notAdded == 1 ? "" : "s") added no heart" }
        text += traps.isEmpty ? ". No trap struck." : ". Traps: \(traps.joined(separator: "; "))."
        let sent = steps.filter { $0.from == .store && $0.to == .server }
        if !sent.isEmpty {
            let failed = sent.filter { $0.attempt == .failed }.count
            text += " \(sent.count) attempt\(sent.count == 1 ? "" : "s") to send a notification to your server"
            text += failed == 0 ? ", none failed." : ", \(failed) failed."
        }
        return text
    }

    /// `text` in lines of at most `limit` characters, broken at spaces; a longer word is cut after a dot or an
    /// underscore, before a parenthesis, or where it must be.
    static func wrap(_ text: String, limit: Int) -> [String] {
        let limit = max(4, limit)
        var lines: [String] = []
        var line = ""
        for piece in text.split(separator: " ", omittingEmptySubsequences: true) {
            var word = piece
            while word.count > limit {
                if !line.isEmpty { lines.append(line); line = "" }
                // After a dot or an underscore, or before a parenthesis, when there is one (`Transaction.` / `updates`,
                // `UNSUCCESSFUL_HTTP_` / `RESPONSE_CODE`), else at the limit.
                let head = word.prefix(limit)
                let cut = head.lastIndex { $0 == "." || $0 == "_" }.map { head.index(after: $0) } ?? head.lastIndex(of: "(") ?? head.endIndex
                let end = cut == head.startIndex ? head.endIndex : cut
                lines.append(String(word[..<end]))
                word = word[end...]
            }
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= limit {
                line += " " + String(word)
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// How many characters fit in `units` of `viewBox` width.
    static func characters(in units: Int) -> Int { units * 10 / characterWidthTenths }

    /// The values `partials/sequence-diagram` draws, every coordinate in `viewBox` units.
    /// - Parameter id: a prefix unique on the page, for the `<title>` and `<desc>` IDs (letters, digits and `-`).
    func drawing(id: String) -> MustacheValue {
        let layout = Layout.drawing(steps)
        var rows: [MustacheValue] = []
        var top = Self.rowsTop
        for step in steps {
            let row = Self.row(step, top: top, layout: layout)
            rows.append(row.value)
            top += row.height
        }
        let legendTop = top + 6
        let hasServer = layout.lanes.contains(.server)
        // With the server's lane, a second legend line: a failed attempt's dashed arrow.
        let height = legendTop + Self.legendHeight + (hasServer ? 18 : 0)
        let lanes: [MustacheValue] = layout.lanes.map { lane in
            [
                "name": .string(lane.name), "x": .int(layout.x(lane)), "boxX": .int(layout.x(lane) - layout.noteHalfWidth),
                "boxWidth": .int(2 * layout.noteHalfWidth), "bottom": .int(top),
            ]
        }
        let legendY = legendTop + 18
        let legend: MustacheValue = [
            "y": .int(legendY), "lineY": .int(legendTop), "width": .int(Self.width),
            "added": Self.heart(x: 14, y: legendY - 4, mark: .added), "addedX": .int(26),
            "notAdded": Self.heart(x: 132, y: legendY - 4, mark: .notAdded), "notAddedX": .int(144),
            "trap": Self.trapMark(x: 246, y: legendY - 4), "trapX": .int(258),
            "failed": hasServer
                ? [
                    "y": .int(legendY + 18), "lineY": .int(legendY + 14), "textX": .int(40),
                    "head": .string("32,\(legendY + 14) 24,\(legendY + 9) 24,\(legendY + 19)"),
                ] : .null,
        ]
        return [
            "id": .string(id), "fourLanes": .bool(hasServer), "title": .string(title), "summary": .string(summary), "width": .int(Self.width),
            "height": .int(height), "lanes": .array(lanes), "rows": .array(rows), "legend": legend,
            "sentences": .array(steps.map { .string($0.sentence) }),
        ]
    }

    /// One row's drawing and its height.
    static func row(_ step: Step, top: Int, layout: Layout = .threeLanes) -> (value: MustacheValue, height: Int) {
        let isNote = step.from == step.to
        let (fromX, toX) = (layout.x(step.from), layout.x(step.to))
        let noteHalfWidth = layout.noteHalfWidth
        let span = isNote ? 2 * noteHalfWidth - 8 : abs(toX - fromX) - 6
        let lines = wrap(step.label, limit: characters(in: span))
        let textHeight = lines.count * lineHeight
        let height = isNote ? textHeight + 14 : textHeight + 16
        let centreX = (fromX + toX) / 2
        let firstBaseline = isNote ? top + 18 : top + 13
        // Every key the template asks for is present (`.null` when absent), so no lookup reaches the page's data.
        var row: TemplateData = [
            "note": .null, "arrow": .null, "heart": .null, "trapMark": .null,
            "isTrap": .bool(step.isTrap), "attempt": step.attempt.map { .string($0.rawValue) } ?? .null, "top": .int(top), "height": .int(height), "width": .int(width),
            "lines": .array(
                lines.enumerated().map { index, line in
                    ["text": .string(line), "x": .int(centreX), "y": .int(firstBaseline + index * lineHeight)]
                }),
        ]
        if isNote {
            row["note"] = [
                "x": .int(fromX - noteHalfWidth), "y": .int(top + 3), "width": .int(2 * noteHalfWidth),
                "height": .int(textHeight + 8),
            ]
        } else {
            let y = top + textHeight + 8
            let direction = toX > fromX ? 1 : -1
            let tip = toX - direction * 2
            let base = tip - direction * 8
            row["arrow"] = [
                "x1": .int(fromX), "x2": .int(base), "y": .int(y),
                "head": .string("\(tip),\(y) \(base),\(y - 5) \(base),\(y + 5)"),
            ]
        }
        let middle = top + height / 2
        switch (step.heart, step.isTrap) {
        case (let mark?, true):
            row["heart"] = heart(x: heartBesideTrapX, y: middle, mark: mark)
            row["trapMark"] = trapMark(x: trapBesideHeartX, y: middle)
        case (let mark?, false):
            row["heart"] = heart(x: markX, y: middle, mark: mark)
        case (nil, true):
            row["trapMark"] = trapMark(x: markX, y: middle)
        case (nil, false):
            break
        }
        return (.object(row), height)
    }

    /// A heart 16 units wide centred on (`x`, `y`): filled when added, an outline crossed out when not.
    static func heart(x: Int, y: Int, mark: HeartMark) -> MustacheValue {
        let path = "M\(x),\(y + 7) C\(x - 10),\(y) \(x - 7),\(y - 8) \(x),\(y - 3) C\(x + 7),\(y - 8) \(x + 10),\(y) \(x),\(y + 7) Z"
        var data: TemplateData = ["path": .string(path), "kind": .string(mark == .added ? "added" : "none"), "cross": .null]
        if mark == .notAdded {
            data["cross"] = ["x1": .int(x - 8), "y1": .int(y + 7), "x2": .int(x + 8), "y2": .int(y - 8)]
        }
        return .object(data)
    }

    /// A warning triangle with `!`, 16 units wide, centred on (`x`, `y`).
    static func trapMark(x: Int, y: Int) -> MustacheValue {
        ["points": .string("\(x),\(y - 8) \(x + 8),\(y + 7) \(x - 8),\(y + 7)"), "x": .int(x), "y": .int(y + 5)]
    }
}
