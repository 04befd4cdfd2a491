/// What the daemon sends with the assets: their media types and the Content-Security-Policy each
/// page or picture needs. They are kept beside the content because they follow from it: a script
/// the page loads from elsewhere, or an inline handler, would need a wider policy.
extension WebAssets {
    public static let htmlMediaType = "text/html; charset=utf-8"
    public static let scriptMediaType = "text/javascript; charset=utf-8"

    /// The playground's Content-Security-Policy: what the page really loads and nothing more. Its
    /// scripts are `/playground.js` and `/client.js` (no inline script, no eval), its only inline
    /// code is the `<style>` element, it talks to this daemon alone (`fetch`, `EventSource`) and
    /// draws inline SVG. Anything injected into the page could neither run nor send data away.
    /// `img-src data:` is for its favicon, an inline SVG data URL (an image cannot run script).
    public static let playgroundPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        + "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// A picture's policy: an SVG opened by itself (the playground's render.svg link) may run
    /// nothing and load nothing; its styles are presentation attributes.
    public static let picturePolicy = "default-src 'none'; style-src 'unsafe-inline'"
}
