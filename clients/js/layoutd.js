// layoutd.js: a small browser client for the layoutd HTTP API (docs/http.md, docs/web.md).
//
//   import { Layoutd } from "/client.js";         // served by layoutd itself
//   const api = new Layoutd("http://127.0.0.1:8080");
//   const s = await api.createSession(doc);        // {id, revision, frames, diagnostics}
//   await api.patch(s.id, { views: { root: { frame: { width: 320 } } } }, { ifMatch: true });
//   const stop = api.subscribe(s.id, (event) => console.log(event.revision, event.frames));
//
// A daemon started with `--api-keys` wants a key on every `/v1/...` call (docs/http.md "Access control"):
//   const api = new Layoutd("https://layout.example.com", { apiKey: "lk_…" });
// The key goes only in the `Authorization: Bearer` header, never in a URL; `<img src>` takes a
// short-lived token: renderURL(id, await api.streamToken(id)).
//
// Frames on the page: applyFrames(frames, elements, { round: "device", animate: { duration: 150 } }),
// or let a subscription do it: api.subscribe(id, null, { apply: { elements } }).
//
// One ES module, no dependencies: `fetch` (streams too, so that their errors have a status) and
// `EventSource` where `fetch` cannot stream. Types: layoutd.d.ts; the package: package.json. Every method returns a promise of the
// parsed JSON answer; a non-2xx answer rejects with a LayoutdError that carries the problem+json
// body (`error.problem`, `error.status`, `error.errors`). The client remembers the last revision it
// saw of each session (from `ETag` and bodies); `{ ifMatch: true }` sends it as `If-Match`.

/** A failed request: `status`, the RFC 9457 `problem` body, and its `errors` ({pointer, code, detail}). */
export class LayoutdError extends Error {
  constructor(status, problem) {
    super(problem && (problem.detail || problem.title) ? problem.detail || problem.title : `HTTP ${status}`);
    this.name = "LayoutdError";
    this.status = status;
    this.problem = problem || { status, title: `HTTP ${status}`, errors: [] };
    this.errors = Array.isArray(this.problem.errors) ? this.problem.errors : [];
    this.type = this.problem.type;
  }
}

export class Layoutd {
  /**
   * @param {string} [baseURL] where layoutd listens, e.g. "http://127.0.0.1:8080"; default: the page's origin.
   * @param {object} [options] `{ coordinates: "absolute" | "relative" }` applied to every call that answers frames;
   *   `apiKey`: sent as `Authorization: Bearer <apiKey>` on every call (it may be changed later: `api.apiKey = …`).
   */
  constructor(baseURL = "", options = {}) {
    this.baseURL = String(baseURL).replace(/\/+$/, "");
    this.coordinates = options.coordinates;
    this.apiKey = options.apiKey || undefined;
    this._revisions = new Map();
  }

  /** The last revision seen of session `id`, or undefined. */
  revision(id) {
    return this._revisions.get(id);
  }

  /** POST /v1/solve: `{frames, diagnostics}`; nothing is kept. `options.strict` answers 409 on a conflict. */
  solve(doc, options = {}) {
    return this._request("POST", "/v1/solve", { body: doc, query: options });
  }

  /** POST /v1/sessions: a new session with a server-chosen id: `{id, revision, frames, diagnostics}`. */
  async createSession(doc, options = {}) {
    return this._request("POST", "/v1/sessions", { body: doc, query: options });
  }

  /** PUT /v1/sessions/{id}: create or replace the session `id`. `options.ifMatch`: true (last seen revision) or a revision. */
  putSession(id, doc, options = {}) {
    return this._request("PUT", sessionPath(id), { id, body: doc, query: options, ifMatch: options.ifMatch });
  }

  /** GET /v1/sessions/{id}: `{id, revision, document, frames, diagnostics}`. */
  getSession(id, options = {}) {
    return this._request("GET", sessionPath(id), { id, query: options });
  }

  /**
   * PATCH /v1/sessions/{id} with a JSON merge patch: `{revision, frames, diagnostics, stats}` where
   * `frames` holds the views whose frame changed (`{ frames: "all" }` for all).
   * `options.ifMatch`: true sends the last revision seen (412 if someone else changed it since), or give a revision.
   */
  patch(id, mergePatch, options = {}) {
    return this._request("PATCH", sessionPath(id), {
      id, body: mergePatch, query: options, ifMatch: options.ifMatch,
      contentType: "application/merge-patch+json",
    });
  }

  /** GET /v1/sessions/{id}/frames: `{revision, frames, diagnostics}`. */
  frames(id, options = {}) {
    return this._request("GET", sessionPath(id) + "/frames", { id, query: options });
  }

  /** DELETE /v1/sessions/{id}. `options.ifMatch` as for patch. Resolves to null. */
  async deleteSession(id, options = {}) {
    await this._request("DELETE", sessionPath(id), { id, ifMatch: options.ifMatch });
    this._revisions.delete(id);
    return null;
  }

  /**
   * The URL of the session drawn as SVG (GET /v1/sessions/{id}/render.svg). With access control on, an
   * `<img>` cannot send the key: pass a token of this session (`streamToken(id)`, or its `token`), which
   * the URL then carries as `?access_token=…` (it reads this one session, for a few minutes).
   */
  renderURL(id, token) {
    const value = token && typeof token === "object" ? token.token : token;
    return this.baseURL + sessionPath(id) + "/render.svg" + queryString({ access_token: value });
  }

  /**
   * POST /v1/sessions/{id}/tokens: `{token, expiresIn}`, a short-lived token that lets GET of this one
   * session (its events, drawing, frames, document) in as `?access_token=…`, for `expiresIn` seconds or
   * until the key is revoked. Needs `apiKey`; a daemon without access control answers 404.
   */
  streamToken(id) {
    return this._request("POST", sessionPath(id) + "/tokens", { id });
  }

  /**
   * Follows the session's revisions over Server-Sent Events (GET /v1/sessions/{id}/events).
   * `onRevision({revision, all, frames, removed, diagnostics})` runs first with every frame (`all: true`),
   * then once per new revision with the frames that changed and the ids of views that went away.
   * `options.apply: {elements, round, animate}` applies each revision's frames to the elements first
   * (`applyFrames`); `onRevision` may then be null.
   *
   * The stream is read with `fetch` (with the key when there is one), so that a refused request is
   * known for what it is: `options.onError(error)` gets a LayoutdError with the answer's `status` and
   * `problem` (404 no such session, 401 a revoked key, 403, …), and the subscription stops; on 429,
   * 5xx, a network failure or a stream that ends, it gets one with `willRetry: true` (`status` 0 for
   * the network) and reconnects with back-off, sending `Last-Event-ID` to resume after the last
   * revision seen. `options.onDeleted({id, reason})` runs when the session is deleted or expires
   * (`event: deleted` / `event: expired`; the subscription then ends); `options.onShutdown({id, retry})`
   * when the daemon announces it is stopping (`event: shutdown`): the subscription reconnects after
   * `retry` ms, without reporting an error. `options.onOpen()` runs each time a stream opens.
   *
   * Where streaming `fetch` is missing, an `EventSource` (without a key only: it cannot send one);
   * when it gives up, a GET of the session's frames finds out why, reported as above.
   * Returns a function that unsubscribes.
   */
  subscribe(id, onRevision, options = {}) {
    const query = queryString({ coordinates: options.coordinates || this.coordinates });
    const url = this.baseURL + sessionPath(id) + "/events" + query;
    const apply = options.apply;
    const onEvent = (type, data, close, reconnectAfter) => {
      if (type === "revision") {
        const event = JSON.parse(data);
        this._remember(id, event.revision, event.all === true);
        if (apply) applyFrames(event.frames, apply.elements, apply);
        if (onRevision) onRevision(event);
      } else if (type === "deleted" || type === "expired") {
        close();
        this._revisions.delete(id);
        const event = parseEventData(data, id);
        if (options.onDeleted) options.onDeleted({ ...event, reason: event.reason || type });
      } else if (type === "shutdown") {
        const event = parseEventData(data, id);
        const retry = Number.isFinite(event.retry) && event.retry >= 0 ? event.retry : 1000;
        if (options.onShutdown) options.onShutdown({ ...event, retry });
        reconnectAfter(retry);
      }
    };
    if (streamingFetch() || this.apiKey) return this._fetchStream(url, onEvent, options);
    return this._eventSource(id, url, onEvent, options);
  }

  // -- internals --

  // Answers to this client's requests are authoritative (`force`: a session deleted and created again
  // starts over at 1); events only move the revision forward, unless they are a full snapshot.
  _remember(id, revision, force = false) {
    if (id === undefined || typeof revision !== "number") return;
    const known = this._revisions.get(id);
    if (force || known === undefined || revision >= known) this._revisions.set(id, revision);
  }

  // An event stream read with `fetch`, so that it can carry the key: what EventSource does (the
  // text/event-stream format, reconnection with `Last-Event-ID` and the server's `retry:`), plus a
  // back-off that grows while the server keeps failing, and an end on answers that will not change.
  _fetchStream(url, onEvent, options) {
    let closed = false, controller = null, timer = null, lastEventID = null, baseDelay = 1000, failures = 0;
    let announced = false;  // the server said it is shutting down: its end of stream is expected
    const close = () => {
      closed = true;
      clearTimeout(timer);
      if (controller) controller.abort();
    };
    // `event: shutdown`: drop this stream and come back after the server's hint, without an error.
    const reconnectAfter = (ms) => {
      announced = true;
      clearTimeout(timer);
      if (controller) controller.abort();
      timer = setTimeout(() => { announced = false; connect(); }, ms);
    };
    const fail = (error, willRetry, retryAfterSeconds) => {
      error.willRetry = willRetry;
      if (!willRetry) closed = true;
      if (options.onError) options.onError(error);
      if (!willRetry || closed) return;
      failures++;
      // Doubling from the server's `retry:` up to 30 s, with jitter so that the clients of a node
      // that went away do not all come back at the same instant.
      const backoff = Math.min(30000, baseDelay * 2 ** Math.min(failures - 1, 5)) * (0.75 + Math.random() * 0.5);
      timer = setTimeout(connect, Math.max(backoff, (retryAfterSeconds || 0) * 1000));
    };
    const connect = async () => {
      if (closed) return;
      controller = new AbortController();
      const headers = { Accept: "text/event-stream" };
      if (this.apiKey) headers["Authorization"] = "Bearer " + this.apiKey;
      if (lastEventID !== null) headers["Last-Event-ID"] = lastEventID;
      let response;
      try {
        response = await fetch(url, { headers, cache: "no-store", signal: controller.signal });
      } catch (e) {
        if (!closed && !announced) fail(new LayoutdError(0, streamProblem("the event stream could not connect: " + e.message)), true);
        return;
      }
      if (!response.ok || !response.body) {
        const problem = await response.json().catch(() => null);
        const retryable = response.status === 429 || response.status >= 500;
        fail(new LayoutdError(response.status, problem), retryable, Number(response.headers.get("Retry-After")) || 0);
        return;
      }
      failures = 0;
      if (options.onOpen) options.onOpen();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = sseParser((type, data, id) => {
        if (id !== undefined) lastEventID = id;
        if (!closed && !announced) onEvent(type, data, close, reconnectAfter);
      }, (ms) => { baseDelay = ms; });
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser(value);
        }
      } catch (e) {
        if (closed || announced) return;  // close() or a shutdown aborted the read
      }
      if (!closed && !announced) fail(new LayoutdError(0, streamProblem("the event stream ended")), true);
    };
    connect();
    return close;
  }

  // The fallback where `fetch` cannot stream: EventSource reconnects by itself (with Last-Event-ID)
  // but hides the status of a refused request, so when it gives up (readyState CLOSED) a plain GET
  // of the session's frames finds the answer and its problem.
  _eventSource(id, url, onEvent, options) {
    let source = null, closed = false, timer = null;
    const close = () => {
      closed = true;
      clearTimeout(timer);
      if (source) source.close();
    };
    const open = () => {
      if (closed) return;
      source = new EventSource(url);
      const reconnectAfter = (ms) => {
        source.close();
        timer = setTimeout(open, ms);
      };
      for (const type of ["revision", "deleted", "expired", "shutdown"]) {
        source.addEventListener(type, (event) => { if (!closed) onEvent(type, event.data, close, reconnectAfter); });
      }
      source.addEventListener("open", () => { if (options.onOpen) options.onOpen(); });
      source.addEventListener("error", async () => {
        if (closed) return;
        if (source.readyState !== EventSource.CLOSED) {
          if (options.onError) options.onError(Object.assign(new LayoutdError(0, streamProblem("the event stream was interrupted")), { willRetry: true }));
          return;
        }
        let error;
        try {
          await this.frames(id);
          error = new LayoutdError(0, streamProblem("the event stream was refused"));
        } catch (e) {
          error = e instanceof LayoutdError ? e : new LayoutdError(0, streamProblem("the event stream could not connect: " + e.message));
        }
        closed = true;
        error.willRetry = false;
        if (options.onError) options.onError(error);
      });
    };
    open();
    return close;
  }

  async _request(method, path, { id, body, query, ifMatch, contentType } = {}) {
    const headers = {};
    if (this.apiKey) headers["Authorization"] = "Bearer " + this.apiKey;
    if (body !== undefined) headers["Content-Type"] = contentType || "application/json";
    if (ifMatch !== undefined && ifMatch !== false && ifMatch !== null) {
      const revision = ifMatch === true ? this._revisions.get(id) : ifMatch;
      if (revision !== undefined) headers["If-Match"] = `"${revision}"`;
    }
    const q = { coordinates: this.coordinates, ...pick(query || {}, ["coordinates", "strict", "frames"]) };
    const response = await fetch(this.baseURL + path + queryString(q), {
      method,
      headers,
      // Always ask the server: an ETag names a revision, and a session created again under the same id
      // repeats revisions, so a cached answer could belong to an older session.
      cache: "no-store",
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const etag = response.headers.get("ETag");
    const text = await response.text();
    let json = null;
    if (text) {
      try { json = JSON.parse(text); } catch { json = null; }
    }
    if (!response.ok) {
      if (json && typeof json.revision === "number") this._remember(id, json.revision, true);
      if (response.status === 404) this._revisions.delete(id);
      throw new LayoutdError(response.status, json);
    }
    const sessionID = id !== undefined ? id : json && json.id;
    const match = etag && /^(?:W\/)?"(\d+)(?:-\d+)?"$/.exec(etag);
    if (match) this._remember(sessionID, Number(match[1]), true);
    else if (json && typeof json.revision === "number") this._remember(sessionID, json.revision, true);
    return json;
  }
}

/**
 * Positions elements absolutely from frames: `left`, `top`, `width`, `height` in CSS pixels, with
 * `box-sizing: border-box` and no margin, so that the border box is the frame. Frames are
 * parent-relative by default: nest the elements as the views are nested and put the root's element
 * in a positioned container (or subscribe with `coordinates: "absolute"` and keep them flat).
 * `elements`: an object or Map from view id to element, or a function id → element; ids without an
 * element are skipped. `options.round: "device"` rounds each edge to device pixels
 * (`window.devicePixelRatio`); `options.animate: {duration, easing}` animates from the frame applied
 * before (Web Animations API; where it is missing, the frame is set at once). Returns how many
 * elements it positioned.
 */
export function applyFrames(frames, elements, options = {}) {
  const lookup = typeof elements === "function" ? elements
    : elements instanceof Map ? (id) => elements.get(id)
    : (id) => (Object.prototype.hasOwnProperty.call(elements, id) ? elements[id] : undefined);
  const ratio = options.round === "device" ? Number(globalThis.devicePixelRatio) || 1 : 0;
  // Edges, not sizes, are rounded: two views that share an edge still share it after rounding, and a
  // child's offsets add up to a device pixel because its parent's do.
  const snap = (v) => (ratio ? Math.round(v * ratio) / ratio : v);
  const animate = options.animate && options.animate.duration > 0 ? options.animate : null;
  let count = 0;
  for (const [id, frame] of Object.entries(frames || {})) {
    const element = lookup(id);
    if (!element || !element.style) continue;
    const left = snap(frame.x), top = snap(frame.y);
    const next = { left, top, width: Math.max(0, snap(frame.x + frame.width) - left), height: Math.max(0, snap(frame.y + frame.height) - top) };
    const previous = appliedFrames.get(element);
    const style = element.style;
    style.position = "absolute";
    style.boxSizing = "border-box";
    style.margin = "0";
    for (const key of ["left", "top", "width", "height"]) style[key] = next[key] + "px";
    appliedFrames.set(element, next);
    count++;
    if (animate && previous && typeof element.animate === "function" &&
        ["left", "top", "width", "height"].some((key) => previous[key] !== next[key])) {
      const keyframe = (f) => ({ left: f.left + "px", top: f.top + "px", width: f.width + "px", height: f.height + "px" });
      element.animate([keyframe(previous), keyframe(next)], { duration: animate.duration, easing: animate.easing || "ease-out" });
    }
  }
  return count;
}

// The frame each element was last given, the start of its next animation.
const appliedFrames = new WeakMap();

// Whether `fetch` can read a body as a stream of text (EventSource is the fallback otherwise).
function streamingFetch() {
  return typeof fetch === "function" && typeof ReadableStream === "function" && typeof TextDecoderStream === "function" &&
    typeof Response === "function" && "body" in Response.prototype;
}

function parseEventData(data, id) {
  try {
    const value = JSON.parse(data);
    return value && typeof value === "object" ? { id, ...value } : { id };
  } catch {
    return { id };
  }
}

function streamProblem(detail) {
  return { status: 0, title: "Event stream interrupted", detail, errors: [] };
}

// The text/event-stream format (HTML's "Server-sent events" §9.2.6): lines end in CRLF, LF or CR; a
// blank line dispatches the event gathered so far (none without data); `:` starts a comment. Returns
// a function to feed text chunks to, which may split lines and events anywhere.
export function sseParser(dispatch, setRetry = () => {}) {
  let buffer = "", type = "", data = [], id;
  const line = (text) => {
    if (text === "") {
      if (data.length) dispatch(type || "message", data.join("\n"), id);
      type = ""; data = [];
      return;
    }
    if (text[0] === ":") return;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value[0] === " ") value = value.slice(1);
    if (field === "event") type = value;
    else if (field === "data") data.push(value);
    else if (field === "id" && !value.includes("\0")) id = value;
    else if (field === "retry" && /^\d+$/.test(value)) setRetry(Number(value));
  };
  return (chunk) => {
    buffer += chunk;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer[i];
      if (c !== "\n" && c !== "\r") continue;
      // A CR at the end of the chunk may be the first half of a CRLF: wait for the next chunk.
      if (c === "\r" && i === buffer.length - 1) break;
      line(buffer.slice(start, i));
      if (c === "\r" && buffer[i + 1] === "\n") i++;
      start = i + 1;
    }
    buffer = buffer.slice(start);
  };
}

function sessionPath(id) {
  return "/v1/sessions/" + encodeURIComponent(id);
}

function pick(object, keys) {
  const out = {};
  for (const k of keys) if (object[k] !== undefined && object[k] !== null) out[k] = object[k];
  return out;
}

function queryString(params) {
  const parts = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === false) continue;
    parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(String(v)));
  }
  return parts.length ? "?" + parts.join("&") : "";
}

export default Layoutd;
