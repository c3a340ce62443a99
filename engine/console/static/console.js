// handoff console: small progressive enhancements over server-rendered pages.
// Every decision, layout and report is computed by the server; this file only fetches
// HTML fragments the server rendered and puts them in place. No inline code (strict CSP).
"use strict";

async function fetchFragment(url, options) {
  const response = await fetch(url, Object.assign({ credentials: "same-origin" }, options));
  return { ok: response.ok, status: response.status, html: await response.text() };
}

// Topology: redraw when the watched config reloads (Server-Sent Events).
function followTopology() {
  const live = document.getElementById("live");
  if (!live || !window.EventSource) return;
  let shown = live.dataset.generation;
  const events = new EventSource("/topology/events");
  events.onmessage = async (event) => {
    if (event.data === shown) return;
    const fragment = await fetchFragment("/topology/live");
    if (!fragment.ok) return;
    shown = event.data;
    live.innerHTML = fragment.html;
    live.dataset.generation = shown;
    const version = document.getElementById("graph-version");
    const badge = document.getElementById("config-version");
    if (version && badge) badge.textContent = version.textContent.slice(0, 16);
  };
}

// Playground: route without leaving the page; the URL keeps the request (shareable).
function enhancePlayground() {
  const form = document.getElementById("route-form");
  const result = document.getElementById("result");
  if (!form || !result) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const query = new URLSearchParams(new FormData(form)).toString();
    result.classList.add("busy");
    const fragment = await fetchFragment("/playground/decision?" + query);
    result.innerHTML = fragment.html;
    result.classList.remove("busy");
    history.replaceState(null, "", "/playground?" + query);
  });
  const text = document.getElementById("text");
  text.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) form.requestSubmit();
  });
}

// Eval: upload a corpus file as the request body (bounded by the server).
function enhanceUpload() {
  const form = document.getElementById("upload-form");
  const result = document.getElementById("eval-result");
  if (!form || !result) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = document.getElementById("upload").files[0];
    if (!file) return;
    const limit = Number(form.dataset.limit);
    if (file.size > limit) {
      result.innerHTML = "";
      const box = document.createElement("div");
      box.className = "card error";
      box.id = "eval-error";
      box.textContent = "the corpus is larger than the upload limit (" + limit + " bytes)";
      result.appendChild(box);
      return;
    }
    result.classList.add("busy");
    const fragment = await fetchFragment("/eval/upload", {
      method: "POST",
      headers: { "Content-Type": "application/octet-stream", "X-Corpus-Name": encodeURIComponent(file.name) },
      body: file,
    });
    result.innerHTML = fragment.html;
    result.classList.remove("busy");
  });
}

document.addEventListener("DOMContentLoaded", () => {
  followTopology();
  enhancePlayground();
  enhanceUpload();
});
