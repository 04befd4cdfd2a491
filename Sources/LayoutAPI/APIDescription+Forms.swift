import JSON

/// The three texts the daemon serves, made from the one embedded form (`openAPIJSON`, written by
/// scripts/generate-openapi). Each is computed once, at its first request (a `static let` is lazy
/// and thread-safe), and then served as the same bytes.
extension APIDescription {
    /// `GET /openapi.json`: the embedded text itself.
    static let openAPIJSONBytes = Array(openAPIJSON.utf8)

    /// The embedded description, parsed. The generator wrote it with Python's JSON module and
    /// OpenAPIContractTests parses it, so a failure here is a build that skipped both.
    static var openAPIValue: JSONValue {
        do {
            return try JSONParser.parse(openAPIJSON)
        } catch {
            preconditionFailure("APIDescription.openAPIJSON does not parse (\(error)): run scripts/generate-openapi")
        }
    }

    /// `GET /openapi.yaml`: the same value as YAML.
    static let openAPIYAMLBytes = Array(YAMLWriter.string(openAPIValue).utf8)

    /// `GET /schemas/layout-document.json`: the document schema in docs/layout-document.schema.json's
    /// own form, out of `components/schemas/LayoutDocument`.
    static let layoutDocumentSchemaBytes = Array((JSONWriter.prettyString(layoutDocumentSchema(openAPIValue)) + "\n").utf8)

    static let componentPath = "#/components/schemas/LayoutDocument"

    /// The inverse of the generator's bundling: `$schema` and `$id` back in front, and every `$ref`
    /// into the component's `$defs` pointing at the schema's own `#/$defs/` again, so that the
    /// schema resolves by itself wherever it is fetched from. The generator checks that this gives
    /// back the file (the same function, in Python).
    static func layoutDocumentSchema(_ spec: JSONValue) -> JSONValue {
        guard let component = spec["components"]?["schemas"]?["LayoutDocument"]?.objectValue else {
            preconditionFailure("APIDescription.openAPIJSON has no components/schemas/LayoutDocument: run scripts/generate-openapi")
        }
        var schema = JSONObject([("$schema", .string(layoutDocumentSchemaDialect)),
                                 ("$id", .string(layoutDocumentSchemaID))])
        for (key, value) in component.entries { schema[key] = ownReferences(value) }
        return .object(schema)
    }

    static func ownReferences(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let a):
            return .array(a.map(ownReferences))
        case .object(let o):
            let prefix = componentPath + "/$defs/"
            return .object(JSONObject(o.entries.map { key, member in
                if key == "$ref", case .string(let ref) = member, ref.hasPrefix(prefix) {
                    return (key, .string("#" + String(ref.dropFirst(componentPath.count))))
                }
                return (key, ownReferences(member))
            }))
        default:
            return value
        }
    }
}
