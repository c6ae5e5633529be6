// HTTP to the server: JSON in and out, the CSRF header on every POST, problem+json errors.

export class ApiError extends Error {
  constructor(status, problem, retryAfter = null) {
    super((problem && (problem.detail || problem.title)) || `request failed (${status})`);
    this.status = status;
    this.code = (problem && problem.code) || null;
    this.problem = problem || {};
    this.retryAfter = retryAfter;
  }
}

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return null;
}

async function csrfToken() {
  let token = cookie("cc_csrf");
  if (!token) {
    const answer = await fetch("/api/csrf", { credentials: "same-origin" });
    const body = await answer.json();
    token = cookie("cc_csrf") || body.csrf_token;
  }
  return token;
}

export async function request(method, path, body, extraHeaders = {}) {
  const headers = { Accept: "application/json", ...extraHeaders };
  const init = { method, headers, credentials: "same-origin" };
  if (method !== "GET") {
    headers["Content-Type"] = "application/json";
    headers["X-CSRF-Token"] = await csrfToken();
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  const answer = await fetch(path, init);
  let data = null;
  const text = await answer.text();
  if (text) {
    try { data = JSON.parse(text); } catch { data = { detail: text }; }
  }
  if (!answer.ok) {
    const retry = Number.parseInt(answer.headers.get("Retry-After") || "", 10);
    throw new ApiError(answer.status, data, Number.isFinite(retry) ? retry : null);
  }
  return data;
}

export const get = (path) => request("GET", path);
export const post = (path, body, headers) => request("POST", path, body, headers);

/** A lost answer or a briefly unavailable server: the same request may be sent again. */
export const retriable = (error) => !(error instanceof ApiError) || error.status === 503;
