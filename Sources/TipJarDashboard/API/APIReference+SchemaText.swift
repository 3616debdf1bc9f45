import Foundation

extension APIReference {
    /// Turns the JSON Schema parts of an OpenAPI document into the short texts the `/api` page shows
    /// (JSON Schema 2020-12 keywords: `type`, `enum`, `$ref`, `anyOf`/`oneOf`, `items`, bounds, `pattern`).
    struct SchemaText {
        /// The document's `components`, for `$ref`s to parameters, responses and request bodies.
        var components: [String: Any]

        /// `#/components/parameters/installID` → the object it names; anything else as it is.
        func resolved(_ node: Any?) -> [String: Any] {
            guard let object = node as? [String: Any] else { return [:] }
            guard let reference = object["$ref"] as? String else { return object }
            var current: Any? = ["components": components]
            for part in reference.split(separator: "/").dropFirst() { current = (current as? [String: Any])?[String(part)] }
            return current as? [String: Any] ?? [:]
        }

        /// The type of a schema in words: `Install`, `array of Transaction`, `string (uuid)`, `integer 1–200`,
        /// `one of: csv, json`, `boolean or null`.
        func type(of node: Any?) -> String {
            guard let schema = node as? [String: Any] else { return "any" }
            if let reference = schema["$ref"] as? String {
                // `#/components/schemas/Install` names a schema; a deeper pointer (`…/StorePatch/properties/catalog`)
                // is said as what it points to.
                let parts = reference.split(separator: "/")
                if parts.count == 4, parts[1] == "components", parts[2] == "schemas" { return String(parts[3]) }
                return type(of: resolved(schema))
            }
            if let choices = (schema["anyOf"] ?? schema["oneOf"]) as? [Any] { return choices.map(type(of:)).joined(separator: " or ") }
            if let members = schema["enum"] as? [Any] {
                return "one of: " + members.map { $0 is NSNull ? "null" : "\($0)" }.joined(separator: ", ")
            }
            var words: [String]
            switch schema["type"] {
            case let name as String: words = [name]
            case let names as [String]: words = [names.joined(separator: " or ")]
            default: words = [schema["properties"] == nil ? "any" : "object"]
            }
            if words == ["array"] { return "array of " + type(of: schema["items"]) }
            if let format = schema["format"] as? String { words.append("(\(format))") }
            let minimum = (schema["minimum"] ?? schema["minLength"]).map { "\($0)" }
            let maximum = (schema["maximum"] ?? schema["maxLength"]).map { "\($0)" }
            let unit = schema["minLength"] != nil || schema["maxLength"] != nil ? " characters" : ""
            switch (minimum, maximum) {
            case let (low?, high?): words.append("\(low)–\(high)\(unit)")
            case let (low?, nil): words.append("≥ \(low)\(unit)")
            case let (nil, high?): words.append("≤ \(high)\(unit)")
            case (nil, nil): break
            }
            return words.joined(separator: " ")
        }

        /// The fields of an object schema, required ones first, each group by name.
        func fields(of node: Any?) -> [Field] {
            let schema = resolved(node)
            let properties = schema["properties"] as? [String: Any] ?? [:]
            let required = Set(schema["required"] as? [String] ?? [])
            return properties.keys.sorted { (required.contains($0) ? 0 : 1, $0) < (required.contains($1) ? 0 : 1, $1) }.map { name in
                let property = properties[name] as? [String: Any] ?? [:]
                return Field(
                    name: name, location: "", type: type(of: property), isRequired: required.contains(name),
                    description: property["description"] as? String ?? "")
            }
        }

        /// One operation of the document. Its request body is the first of its media types (`application/json`, or
        /// `application/merge-patch+json` for a PATCH).
        func operation(method: String, path: String, _ operation: [String: Any]) -> Operation {
            let parameters = (operation["parameters"] as? [Any] ?? []).map(resolved).map { parameter in
                Field(
                    name: parameter["name"] as? String ?? "", location: parameter["in"] as? String ?? "",
                    type: type(of: parameter["schema"]), isRequired: parameter["required"] as? Bool ?? false,
                    description: parameter["description"] as? String ?? "")
            }
            let body = resolved(operation["requestBody"])
            let bodyContent = body["content"] as? [String: Any] ?? [:]
            let bodyMediaType = bodyContent.keys.sorted().first
            let json = resolved(bodyMediaType.flatMap { bodyContent[$0] })
            let answers = (operation["responses"] as? [String: Any] ?? [:]).sorted { $0.key < $1.key }.map { status, node in
                let answer = resolved(node)
                let bodies = (answer["content"] as? [String: Any] ?? [:]).sorted { $0.key < $1.key }.map { media, content in
                    let content = resolved(content)
                    return Body(mediaType: media, type: type(of: content["schema"]), example: Self.example(in: content))
                }
                return Answer(status: status, description: answer["description"] as? String ?? "", bodies: bodies)
            }
            let anchor =
                (operation["operationId"] as? String).map { "op-\($0)" }
                ?? "op-\(method)-" + path.map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
            return Operation(
                method: method.uppercased(), path: path, anchor: anchor,
                summary: operation["summary"] as? String ?? "", description: operation["description"] as? String ?? "",
                tags: operation["tags"] as? [String] ?? [], parameters: parameters, bodyMediaType: bodyMediaType,
                bodyFields: json.isEmpty ? [] : fields(of: json["schema"]),
                isBodyRequired: body["required"] as? Bool ?? false, bodyExample: Self.example(in: json),
                answers: answers)
        }

        /// A schema of `components.schemas`.
        func schema(named name: String, _ schema: [String: Any]) -> Schema {
            let kind: String
            if schema["enum"] != nil {
                kind = "enumeration"
            } else if let choices = (schema["oneOf"] ?? schema["anyOf"]) as? [Any] {
                kind = "one of \(choices.count) shapes"
            } else {
                kind = (schema["type"] as? String) ?? (schema["properties"] == nil ? "any" : "object")
            }
            return Schema(
                name: name, description: schema["description"] as? String ?? "", type: type(of: schema), kind: kind,
                fields: fields(of: schema), example: Self.text(schema["example"] ?? (schema["examples"] as? [Any])?.first))
        }

        /// The example of a media type object (OpenAPI 3.1 §4.8.14): its `example`, else the `value` of the first of
        /// its `examples` by name.
        static func example(in content: [String: Any]) -> String? {
            if let example = content["example"] { return text(example) }
            guard let examples = content["examples"] as? [String: Any], let first = examples.keys.sorted().first else { return nil }
            return text((examples[first] as? [String: Any])?["value"])
        }

        /// An example as indented JSON with sorted keys (a string example, such as CSV, as it is), or `nil`.
        static func text(_ example: Any?) -> String? {
            if let text = example as? String { return text }
            guard let example, JSONSerialization.isValidJSONObject(example),
                let data = try? JSONSerialization.data(withJSONObject: example, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            else { return nil }
            return String(decoding: data, as: UTF8.self)
        }
    }
}
