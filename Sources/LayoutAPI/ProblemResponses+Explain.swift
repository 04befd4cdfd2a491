import LayoutEngine
import LayoutModel

// The problems of `GET /v1/sessions/{id}/explain` (LayoutAPI+Explain.swift).

extension Problems {
    /// A query parameter a route needs is absent or empty.
    static func missingParameter(_ name: String) -> APIResponse {
        response(400, type: "invalid-query", title: "Invalid query parameter",
                 detail: "query parameter '\(name)' is required",
                 errors: [Problem(pointer: "/" + name, code: ProblemCode.missingField.rawValue,
                                  detail: "\(name) is required")])
    }

    /// An explain request that names no view (404) or no single attribute (422).
    static func explainRefused(_ error: ExplainError) -> APIResponse {
        switch error {
        case .unknownView(_, let suggestion):
            return response(404, type: "view-not-found", title: "No such view", detail: error.message,
                            errors: [Problem(pointer: "/view", code: ProblemCode.unknownView.rawValue,
                                             detail: error.message, suggestion: suggestion)])
        case .unknownAttribute(_, let suggestion):
            return response(422, type: "invalid-attribute", title: "Invalid attribute", detail: error.message,
                            errors: [Problem(pointer: "/attribute", code: ProblemCode.unknownAttribute.rawValue,
                                             detail: error.message, suggestion: suggestion)])
        case .compositeAttribute:
            return response(422, type: "invalid-attribute", title: "Invalid attribute", detail: error.message,
                            errors: [Problem(pointer: "/attribute", code: ProblemCode.invalidAnchor.rawValue,
                                             detail: error.message)])
        }
    }
}
