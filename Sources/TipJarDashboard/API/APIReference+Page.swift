import Foundation
import Mustache

extension APIReference {
    /// A description as the page shows it: runs of text, and `code` between backticks (the document's own
    /// convention, as in CommonMark code spans) as `<code>`; an empty text gives no runs.
    static func runs(_ text: String) -> MustacheValue {
        var runs: [MustacheValue] = []
        for (index, part) in text.split(separator: "`", omittingEmptySubsequences: false).enumerated() where !part.isEmpty {
            runs.append(["text": .string(String(part)), "isCode": .bool(index % 2 == 1)])
        }
        return .array(runs)
    }

    /// A type in words as the page shows it: runs of text, and each word that names one of `schemas` as a link to
    /// that schema's entry (`#schema-Name`): `array of Transaction` → `array of ` and a link to `Transaction`.
    static func typeRuns(_ type: String, schemas: Set<String>) -> MustacheValue {
        var runs: [MustacheValue] = []
        var text = ""
        var word = ""
        func flushWord() {
            guard !word.isEmpty else { return }
            if schemas.contains(word) {
                if !text.isEmpty { runs.append(["text": .string(text), "isLink": false]) }
                runs.append(["text": .string(word), "isLink": true])
                text = ""
            } else {
                text += word
            }
            word = ""
        }
        for character in type {
            if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
            } else {
                flushWord()
                text.append(character)
            }
        }
        flushWord()
        if !text.isEmpty { runs.append(["text": .string(text), "isLink": false]) }
        return .array(runs)
    }

    /// The page's values.
    var mustacheValue: MustacheValue {
        let runs = Self.runs
        let names = Set(schemas.map(\.name))
        let typeRuns = { (type: String) in Self.typeRuns(type, schemas: names) }
        func field(_ field: Field) -> MustacheValue {
            [
                "name": .string(field.name), "location": .string(field.location), "type": typeRuns(field.type),
                "isRequired": .bool(field.isRequired), "description": runs(field.description),
                "hasDescription": .bool(!field.description.isEmpty),
            ]
        }
        func operation(_ operation: Operation) -> MustacheValue {
            [
                "method": .string(operation.method), "methodClass": .string(operation.method.lowercased()),
                "path": .string(operation.path), "anchor": .string(operation.anchor),
                "summary": .string(operation.summary), "description": runs(operation.description),
                "hasDescription": .bool(!operation.description.isEmpty),
                "parameters": .array(operation.parameters.map(field)), "hasParameters": .bool(!operation.parameters.isEmpty),
                "bodyMediaType": operation.bodyMediaType.map(MustacheValue.string) ?? .null,
                "bodyFields": .array(operation.bodyFields.map(field)),
                "hasBody": .bool(!operation.bodyFields.isEmpty || operation.bodyExample != nil),
                "isBodyRequired": .bool(operation.isBodyRequired),
                "bodyExample": operation.bodyExample.map(MustacheValue.string) ?? .null,
                "answers": .array(
                    operation.answers.map { answer in
                        [
                            "status": .string(answer.status), "description": runs(answer.description),
                            "bodies": .array(
                                answer.bodies.map { body in
                                    [
                                        "mediaType": .string(body.mediaType), "type": typeRuns(body.type),
                                        "example": body.example.map(MustacheValue.string) ?? .null,
                                    ]
                                }),
                        ]
                    }),
            ]
        }
        let groups: [MustacheValue] = groups.map { group in
            [
                "title": .string(group.title), "description": runs(group.description), "anchor": .string(group.anchor),
                "hasDescription": .bool(!group.description.isEmpty), "count": .int(group.operations.count),
                "operations": .array(group.operations.map(operation)),
            ]
        }
        let schemas: [MustacheValue] = schemas.map { schema in
            [
                "name": .string(schema.name), "description": runs(schema.description), "type": typeRuns(schema.type),
                "kind": .string(schema.kind), "hasDescription": .bool(!schema.description.isEmpty),
                "fields": .array(schema.fields.map(field)), "hasFields": .bool(!schema.fields.isEmpty),
                "example": schema.example.map(MustacheValue.string) ?? .null,
            ]
        }
        return [
            "title": .string(title), "version": .string(version), "description": runs(description),
            "groups": .array(groups), "schemas": .array(schemas), "problem": problem.map(MustacheValue.string) ?? .null,
            "operationCount": .int(self.groups.reduce(0) { $0 + $1.operations.count }),
        ]
    }
}
