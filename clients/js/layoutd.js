// layoutd.js: a small browser client for the layoutd HTTP API (docs/http.md, docs/web.md).
//
//   import { Layoutd } from "/client.js";         // served by layoutd itself
//   const api = new Layoutd("http://127.0.0.1:8080");
//   const s = await api.createSession(doc);        // {id, revision, frames, diagnostics}
//   await api.patch(s.id, { views: { root: { frame: { width: 320 } } } }, { ifMatch: true });
//   const stop = api.subscribe(s.id, (event) => console.log(event.revision, event.frames));
//
// One ES module, no dependencies: `fetch` and `EventSource`. Every method returns a promise of the
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
   * @param {object} [options] `{ coordinates: "absolute" | "relative" }` applied to every call that answers frames.
   */
  constructor(baseURL = "", options = {}) {
    this.baseURL = String(baseURL).replace(/\/+$/, "");
    this.coordinates = options.coordinates;
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

  /** The URL of the session drawn as SVG (GET /v1/sessions/{id}/render.svg). */
  renderURL(id) {
    return this.baseURL + sessionPath(id) + "/render.svg";
  }

  /**
   * Follows the session's revisions over Server-Sent Events (GET /v1/sessions/{id}/events).
   * `onRevision({revision, all, frames, removed, diagnostics})` runs first with every frame (`all: true`),
   * then once per new revision with the frames that changed and the ids of views that went away.
   * `options.onDeleted({id, reason})` runs when the session is deleted or expires (the subscription then
   * ends); `options.onError(event)` on connection errors (EventSource reconnects by itself).
   * Returns a function that unsubscribes.
   */
  subscribe(id, onRevision, options = {}) {
    const query = queryString({ coordinates: options.coordinates || this.coordinates });
    const source = new EventSource(this.baseURL + sessionPath(id) + "/events" + query);
    source.addEventListener("revision", (event) => {
      const data = JSON.parse(event.data);
      this._remember(id, data.revision, data.all === true);
      onRevision(data);
    });
    source.addEventListener("deleted", (event) => {
      source.close();
      this._revisions.delete(id);
      if (options.onDeleted) options.onDeleted(JSON.parse(event.data));
    });
    source.addEventListener("error", (event) => {
      if (options.onError) options.onError(event);
    });
    if (options.onOpen) source.addEventListener("open", options.onOpen);
    return () => source.close();
  }

  // -- internals --

  // Answers to this client's requests are authoritative (`force`: a session deleted and created again
  // starts over at 1); events only move the revision forward, unless they are a full snapshot.
  _remember(id, revision, force = false) {
    if (id === undefined || typeof revision !== "number") return;
    const known = this._revisions.get(id);
    if (force || known === undefined || revision >= known) this._revisions.set(id, revision);
  }

  async _request(method, path, { id, body, query, ifMatch, contentType } = {}) {
    const headers = {};
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
