/// LayoutAPI: routes and errors of the HTTP API, without sockets.
public enum LayoutAPIInfo {
    public static let version = "1"
}
