// The example page's script: the package used as a front end would (docs/web.md).
import { Layoutd, LayoutdError, applyFrames } from "../layoutd.js";

/** @type {import("../layoutd.js").LayoutDocument} */
export const loginForm = {
  views: {
    root: { frame: { width: 360, height: 400 } },
    form: { parent: "root" },
    title: { parent: "form", intrinsicSize: { width: 120.3, height: 28.6 } },
    email: { parent: "form", frame: { height: 36 } },
    password: { parent: "form", frame: { height: 36 } },
    submit: { parent: "form", intrinsicSize: { width: 96.5, height: 36 } },
  },
  constraints: {
    // Centred, at most 480 wide, 16.25 from the sides when narrower: fractional on purpose, so that
    // rounding to device pixels has something to do.
    center: "form.centerX == root.centerX",
    top: "form.top == root.top + 24.25",
    max: "form.width <= 480",
    sides: { first: "form.horizontal", second: "root.horizontal", relation: ">=", constant: 16.25 },
    fill: { first: "form.width", second: "root.width", constant: -32.5, priority: "high" },
    column: { format: "V:|[title]-12.5-[email]-8-[password]-16-[submit]|" },
    rows: { align: "leading", views: ["title", "email", "password", "submit"] },
    wide1: "email.width == form.width",
    wide2: "password.width == form.width",
  },
};

const ids = ["root", "form", "title", "email", "password", "submit"];
const elements = Object.fromEntries(ids.map((id) => [id, document.getElementById(id)]));
const status = document.getElementById("status");
const say = (text, error = false) => { status.textContent = text; status.className = error ? "error" : ""; };

/** What the page did, for the browser test (scripts/browser-test) and the curious. */
export const example = {
  api: null, sessionId: null, revision: 0, animationsStarted: 0, errors: [], shutdowns: [], stop: null,
  elements, loginForm, applyFrames, Layoutd, LayoutdError,

  /** Solves once and applies the frames; then a session, followed by `subscribe` driving applyFrames. */
  async run({ daemon, apiKey, round = "device", animate = { duration: 150 } } = {}) {
    const api = new Layoutd(daemon, { apiKey });
    this.api = api;
    const solved = await api.solve(loginForm);
    applyFrames(solved.frames, elements, { round });
    const session = await api.createSession(loginForm);
    this.sessionId = session.id;
    if (this.stop) this.stop();
    this.stop = api.subscribe(session.id, (event) => {
      this.revision = event.revision;
      // applyFrames (the `apply` option) has just run: its animations have started.
      this.animationsStarted += document.getAnimations().length;
      say(`revision ${event.revision}: ${Object.keys(event.frames).length} frames`);
    }, {
      apply: { elements, round, animate },
      onError: (error) => { this.errors.push([error.status, error.problem.type]); say(error.message, true); },
      onDeleted: (event) => say(`session ${event.id} ${event.reason}`),
      onShutdown: (event) => {
        this.shutdowns.push(event);
        say(`the daemon is restarting; back in ${event.retry} ms`);
      },
    });
    return session.id;
  },

  /** A merge patch of the root's width: the subscription moves the elements. */
  resize(width) {
    return this.api.patch(this.sessionId, { views: { root: { frame: { width } } } });
  },

  /** Subscribes to `id` and resolves with the first error (a LayoutdError), or "event". */
  firstStreamError(id, apiKey) {
    const api = new Layoutd(this.api.baseURL, { apiKey });
    return new Promise((resolve) => {
      const stop = api.subscribe(id, () => { stop(); resolve("event"); }, {
        onError: (error) => {
          stop();
          resolve({ isLayoutdError: error instanceof LayoutdError, status: error.status, type: error.problem.type,
                    title: error.problem.title, willRetry: error.willRetry });
        },
      });
    });
  },
};
window.example = example;

const params = new URLSearchParams(location.search);
const daemon = params.get("daemon") || "http://127.0.0.1:8080";
const keyField = document.getElementById("key");
const start = () => example.run({ daemon, apiKey: keyField.value || undefined })
  .catch((e) => say(e instanceof LayoutdError ? `${e.status}: ${e.message}` : String(e), true));
document.getElementById("start").addEventListener("click", start);
document.getElementById("width").addEventListener("input", (event) => {
  if (example.sessionId) example.resize(Number(event.target.value)).catch((e) => say(e.message, true));
});
if (params.has("daemon") && params.get("autostart") !== "0") start();
