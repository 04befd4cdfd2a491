import ArgumentParser

/// `layoutd`: the root command. It only groups the subcommands; each one does the work.
///
/// Deliberately not `main.swift`: top-level code there is main-actor isolated in Swift 6, and a C
/// callback defined there would trap when libevent calls it on a worker thread.
@main
struct Layoutd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layoutd",
        abstract: "Layout as a service: JSON layout documents in, view frames out.",
        discussion: """
            layoutd solves layout documents (views and Auto Layout-style constraints, written as \
            JSON) with a Cassowary constraint solver and answers the frame of every view.

            `layoutd serve` runs the HTTP/1.1 daemon (see `layoutd serve --help` for its settings, \
            its configuration file and its endpoints). `layoutd solve FILE` solves one document \
            and prints exactly what the daemon's POST /v1/solve answers (see `layoutd solve --help`). \
            `layoutd store check|compact --store sqlite:PATH` checks or compacts a session store. \
            `layoutd probe` asks a running daemon for its /readyz (the container HEALTHCHECK). \
            `layoutd keys new|list|revoke --file FILE` makes, lists and revokes API keys (`serve --api-keys FILE`).

            Exit status: 0 on success and after a graceful shutdown (SIGINT or SIGTERM); 1 when \
            the daemon cannot start (port in use, address not available), or when `solve` finds \
            the document invalid; 64 for a usage error or an invalid setting (flag or \
            configuration file).
            """,
        version: "0.1.0",
        // There is deliberately no default subcommand.
        subcommands: [Serve.self, Solve.self, Store.self, Probe.self, Keys.self]
    )
}
