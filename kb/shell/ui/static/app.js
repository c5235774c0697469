// The reading room. Plain DOM, no build step, no request leaves 127.0.0.1.
// Text from the fleet is always set as text; the only HTML inserted is a note rendered by
// kb's own renderer, which escapes the note before reading any markdown.
"use strict";

const TOKEN = document.querySelector('meta[name="kb-token"]').content;
const state = { fleet: null, stacks: null, check: null, blocks: null, lastQ: null, note: null,
                session: "", chatBusy: false };

// -- helpers ------------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c));
  return node;
}

async function api(path, options) {
  const response = await fetch(path, options);
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(body.error || `${response.status}`);
  return body;
}

// Sentences kb words itself mark commands and file names with backticks: show them as code.
function prose(text) {
  return el("span", {}, ...String(text).split("`").map((part, i) => (i % 2 ? el("code", { text: part }) : part)));
}

const num = (x, digits = 2) => (x === null || x === undefined ? "∞" : Number(x).toFixed(digits));
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
const noteHash = (base, rel) => `#read/${encodeURIComponent(base)}/${rel.split("/").map(encodeURIComponent).join("/")}`;

function tagFor(ribbon) {
  const cls = { "short memory": "short", private: "private", "no keys": "nokeys", map: "map",
                unreadable: "broken" }[ribbon] || "";
  return el("span", { class: `tag ${cls}`, text: ribbon });
}

function showView(name) {
  for (const section of document.querySelectorAll("section.view")) {
    section.hidden = section.id !== `view-${name}`;
  }
  for (const a of document.querySelectorAll("nav.tabs a")) {
    a.classList.toggle("active", a.dataset.view === name);
  }
}

// -- the fleet and the shelves --------------------------------------------------------------

async function loadAll() {
  const [fleet, stacks, check, blocks] = await Promise.all([
    api("/api/fleet"), api("/api/stacks"), api("/api/check"), api("/api/blocks"),
  ]);
  Object.assign(state, { fleet, stacks, check, blocks });
  document.getElementById("fleet-name").textContent = fleet.fleet;
  document.getElementById("fleet-facts").textContent =
    `${plural(fleet.agents.length, "base", "bases")} · ${plural(fleet.entries, "entry", "entries")} · ${plural(fleet.aliases, "alias", "aliases")}`;
  document.getElementById("private-badge").hidden = !fleet.private;
  document.getElementById("check-count").textContent = check.errors ? String(check.errors) : "";
  renderShelves();
  renderCheck();
  renderBlocks();
  renderChat();
}

function renderShelves() {
  const filter = document.getElementById("shelf-filter").value.trim().toLowerCase();
  const root = document.getElementById("shelves");
  root.replaceChildren();
  for (const shelf of state.stacks.shelves) {
    const books = shelf.books.filter((b) => !filter ||
      b.title.toLowerCase().includes(filter) || b.rel.toLowerCase().includes(filter));
    if (filter && !books.length) continue;
    const folders = new Map();
    for (const b of books) {
      const key = b.folder || "";
      if (!folders.has(key)) folders.set(key, []);
      folders.get(key).push(b);
    }
    const open = Boolean(filter) || (state.note && state.note.base === shelf.base);
    const details = el("details", { class: "shelf", open },
      el("summary", {},
        el("span", { class: "agent", text: shelf.card }),
        shelf.routable ? null : el("span", { class: "tag aside", text: "not an agent" }),
        el("span", { class: "role", text: shelf.role || `${plural(shelf.books.length, "note", "notes")} in scope` })));
    for (const [folder, list] of [...folders.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
      const ul = el("ul");
      for (const b of list) {
        const current = state.note && state.note.base === shelf.base && state.note.rel === b.rel;
        ul.append(el("li", {},
          el("a", { href: noteHash(shelf.base, b.rel), class: current ? "current" : null, title: `${shelf.base}/${b.rel}` },
            b.title,
            ...b.ribbons.filter((r) => r !== "map").map(tagFor),
            b.broken.length ? el("span", { class: "tag broken", text: `${b.broken.length} broken` }) : null)));
      }
      details.append(el("div", { class: "folder" },
        el("div", { class: "folder-name", text: folder || "top level" }), ul));
    }
    if (!shelf.books.length) details.append(el("p", { class: "muted folder", text: "nothing on this shelf in scope" }));
    root.append(details);
  }
}

// -- ask ----------------------------------------------------------------------------------

const SAID = {
  hit: "An answer. The first note covers your question and clearly leads the rest.",
  guess: "A guess. Something matched, but it covers too little of the question or leads too little: read it with care, it may not answer you.",
  nothing: "Nothing. No note covers enough of your question, so the fleet refuses rather than guesses.",
};

async function ask(question) {
  state.lastQ = question;
  document.getElementById("question").value = question;
  const target = document.getElementById("answer");
  target.replaceChildren(el("p", { class: "muted", text: "Asking…" }));
  try {
    const r = await api(`/api/route?q=${encodeURIComponent(question)}`);
    renderAnswer(r);
  } catch (e) {
    target.replaceChildren(el("p", { class: "card", text: `The question could not be asked: ${e.message}` }));
  }
}

function renderAnswer(r) {
  const target = document.getElementById("answer");
  target.replaceChildren();
  if (r.verdict === "empty") {
    target.append(el("p", { class: "muted", text: "A blank question routes nowhere. Type a question first." }));
    return;
  }
  target.append(el("div", { class: `card verdict ${r.verdict}`, "data-verdict": r.verdict, "data-question": r.question },
    el("div", { class: "word", text: r.verdict }),
    el("div", {},
      el("p", { class: "said", text: SAID[r.verdict] }),
      el("div", { class: "numbers" },
        el("span", {}, "covers ", el("b", { text: `${Math.round((r.coverage || 0) * 100)}%` }), " of the question"),
        el("span", {}, "best keyword score ", el("b", { text: num(r.score) })),
        r.verdict !== "nothing" && r.keywords.length > 1 ? el("span", {}, "margin over the runner-up ", el("b", { text: `${num(r.margin)}×` })) : null,
        el("span", {}, "terms ", el("b", { text: r.terms.join(", ") || "none" }))))));

  if (r.verdict === "nothing") {
    const box = el("div", { class: "card shortfall" }, el("h3", { class: "section", text: "Why nothing" }));
    for (const s of r.shortfall) box.append(el("p", {}, prose(s)));
    if (r.suggestions.length) {
      box.append(el("p", { text: "The fleet does know these words, and they look like yours (spelling, not meaning):" }));
      const chips = el("div", { class: "suggestions" });
      for (const s of r.suggestions) chips.append(el("button", { type: "button", class: "chip", text: s, onclick: () => go(`#ask?q=${encodeURIComponent(s)}`) }));
      box.append(chips);
    } else if (!r.shortfall.length) {
      box.append(el("p", { text: "No note declares any of these words, and none looks like them." }));
    }
    target.append(box);
  }

  // The fused list first, right under the verdict: the list `kb route --json` gives, in its
  // order (decision 0029). The owner and the keyword chart come after it.
  if (r.found.length) {
    const served = r.verdict !== "nothing";
    const box = el("div", { class: `card${served ? "" : " textonly"}` },
      el("h3", { class: "section", text: served ? "Files, best first" : "The text scorer found these; they are not served as an answer" }));
    const list = el("ol", { class: "found" });
    for (const f of r.found) {
      const chips = f.matched ? f.matched.split(", ").map((m) => el("span", { class: "chip", text: m })) : [];
      list.append(el("li", { "data-rel": `${f.base}/${f.rel}` },
        el("div", { class: "title" },
          el("a", { href: noteHash(f.base, f.rel), text: f.title || f.rel }), " ",
          f.memory === "short" ? el("span", { class: "tag short", text: "short memory" }) : null, " ",
          f.stale ? el("span", { class: "tag broken", text: "changed since indexed" }) : null),
        el("div", { class: "where", text: `${f.base}/${f.rel}` }),
        el("div", { class: "scores" },
          "fused ", el("b", { text: num(f.fused, 4) }), " · keyword ", el("b", { text: num(f.keyword) }),
          " · ", f.why),
        chips.length ? el("div", {}, chips) : null,
        f.excerpt ? el("blockquote", {},
          f.heading ? el("span", { class: "heading", text: f.heading }) : null,
          f.memory === "short" ? el("span", { class: "tag short", text: "[short memory]" }) : null, " ",
          f.excerpt) : null));
    }
    box.append(list);
    target.append(box);
  }

  const row = el("div", { class: "two" });
  if (r.agent) {
    const table = el("table");
    for (const t of r.agent.totals) {
      table.append(el("tr", { class: t.name === r.agent.name ? "elected" : null },
        el("td", { text: t.name }), el("td", { text: num(t.score) })));
    }
    row.append(el("div", { class: "card owner" },
      el("h3", { class: "section", text: "Owner" }),
      el("div", { class: "name", text: r.agent.name }),
      el("div", { class: "numbers" },
        el("span", {}, "score ", el("b", { text: num(r.agent.score) })),
        el("span", {}, "contenders ", el("b", { text: String(r.agent.contenders) })),
        el("span", {}, "kinds ", el("b", { text: String(r.agent.files) }))),
      table));
  }
  if (r.keywords.length) {
    row.append(el("div", { class: "card" }, el("h3", { class: "section", text: "Keyword scores against the floor" }), chart(r)));
  }
  if (row.childNodes.length) target.append(row);
}

function chart(r) {
  const bars = r.keywords;
  const width = 480, left = 196, right = 46, rowH = 22, top = 22;
  const height = top + bars.length * rowH + 8;
  const max = Math.max(r.floor * 1.15, ...bars.map((b) => b.score), 1);
  const x = (v) => left + (v / max) * (width - left - right);
  const node = svg("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": `keyword scores of the top ${bars.length} files against the floor ${num(r.floor)}` });
  const scores = [];
  bars.forEach((b, i) => {
    const y = top + i * rowH;
    const name = `${b.base}/${b.rel.split("/").pop().replace(/\.md$/i, "")}`;
    const label = svg("text", { x: left - 6, y: y + 14, "text-anchor": "end" }, name.length > 30 ? `${name.slice(0, 29)}…` : name);
    label.append(svg("title", {}, `${b.base}/${b.rel}: ${b.matched}`));
    node.append(label);
    node.append(svg("rect", { class: `bar ${b.score >= r.floor ? "above" : "below"}`, x: left, y: y + 4,
      width: Math.max(x(b.score) - left, 1), height: rowH - 8, rx: 3 }));
    scores.push(svg("text", { class: "score", x: x(b.score) + 4, y: y + 14 }, num(b.score, 1)));
  });
  // The floor over the bars, the numbers over the floor: each stays readable.
  node.append(svg("line", { class: "floor", x1: x(r.floor), x2: x(r.floor), y1: top - 6, y2: height - 2 }));
  node.append(svg("text", { class: "floor-label", x: x(r.floor), y: 12, "text-anchor": "middle" }, `floor ${num(r.floor, 1)}`));
  node.append(...scores);
  return node;
}

// -- read ---------------------------------------------------------------------------------

async function openNote(base, rel) {
  showView("read");
  const target = document.getElementById("note");
  try {
    const f = await api(`/api/file?base=${encodeURIComponent(base)}&rel=${encodeURIComponent(rel)}`);
    state.note = { base: f.base, rel: f.rel };
    const article = el("article", { class: "markdown" });
    article.innerHTML = f.html; // kb's renderer: the note was escaped before it was read
    const facts = el("div", { class: "facts" });
    const listOf = (title, items, make) => {
      if (!items.length) return;
      facts.append(el("h4", { text: title }));
      const ul = el("ul");
      for (const item of items) ul.append(el("li", {}, make(item)));
      facts.append(ul);
    };
    facts.append(el("h4", { text: "This file" }),
      el("ul", {},
        el("li", { text: `${f.bytes} bytes` }),
        el("li", { text: f.memory === "short" ? "short memory: recent, not distilled" : "long memory" }),
        f.private ? el("li", { text: "private layer" }) : null));
    listOf("Linked from", f.cited_by, (r) => el("a", { href: noteHash(f.base, r), text: r }));
    listOf("Broken links", f.broken, (t) => el("span", { class: "wikilink broken", text: `[[${t}]]` }));
    listOf("Cites", f.cites, (k) => el("code", { text: k }));
    target.replaceChildren(
      el("div", { class: "crumbs" }, `${f.base} / ${f.rel}`, " ", ...f.ribbons.map(tagFor)),
      el("div", { class: "note-grid" }, article, facts));
    renderShelves();
    window.scrollTo(0, 0);
  } catch (e) {
    state.note = null;
    target.replaceChildren(el("div", { class: "card" },
      el("p", { text: `${base}/${rel}: ${e.message}.` }),
      el("p", { class: "muted", text: "The reading room serves only files the fleet's discovery found, and the private layer only with --all." })));
  }
}

document.getElementById("note").addEventListener("click", (event) => {
  const link = event.target.closest("a.wikilink, a.internal");
  if (!link) return;
  event.preventDefault();
  go(noteHash(link.dataset.base, link.dataset.rel));
});

// -- check --------------------------------------------------------------------------------

function renderCheck() {
  const c = state.check;
  const target = document.getElementById("check");
  target.replaceChildren();
  const line = c.findings.length
    ? `${plural(c.errors, "error", "errors")} and ${plural(c.warnings, "warning", "warnings")}, the same findings kb check prints.`
    : "Clean: kb check finds nothing to report.";
  target.append(el("p", { class: `summary-line${c.findings.length ? "" : " clean"}`, text: line }));
  if (c.findings.length) {
    const table = el("table", { class: "grid" },
      el("thead", {}, el("tr", {}, el("th", { text: "level" }), el("th", { text: "code" }),
        el("th", { text: "where" }), el("th", { text: "what to do" }))));
    const body = el("tbody");
    for (const f of c.findings) {
      const known = state.stacks.shelves.some((s) => s.base === f.base && s.books.some((b) => b.rel === f.file));
      const place = `${f.base}/${f.file}${f.line ? `:${f.line}` : ""}`;
      body.append(el("tr", { class: "finding" },
        el("td", {}, el("span", { class: `level ${f.level}`, text: f.level })),
        el("td", {}, el("code", { text: f.code })),
        el("td", { class: "where" }, known ? el("a", { href: noteHash(f.base, f.file), text: place }) : place),
        el("td", {}, prose(f.message))));
    }
    table.append(body);
    target.append(el("div", { class: "card" }, table));
  }
  for (const s of c.skipped) {
    target.append(el("p", { class: "muted", text: `skipped ${s.base}/${s.file}: ${s.reason}` }));
  }
}

// -- blocks -------------------------------------------------------------------------------

function renderBlocks() {
  const target = document.getElementById("blocks");
  target.replaceChildren();
  if (!state.blocks.agents.length) {
    target.append(el("div", { class: "card" },
      el("p", { text: "No base here has a blocks.txt." }),
      el("p", { class: "muted", text: "A blocks.txt lists an agent's constitution as labelled blocks, most stable first; kb prices each block in tokens and shows what a change to it costs the prompt cache." })));
    return;
  }
  for (const a of state.blocks.agents) {
    const card = el("div", { class: "card", "data-base": a.base },
      el("h3", { class: "section", text: `${a.base} / blocks.txt` }));
    if (a.error) {
      card.append(el("p", { text: a.error }));
      target.append(card);
      continue;
    }
    const table = el("table", { class: "grid" }, el("thead", {}, el("tr", {},
      ...["#", "block", "mode", "files", "bytes sent", "~tokens", "cumulative"].map((h) => el("th", { text: h })))));
    const body = el("tbody");
    a.blocks.forEach((b, i) => {
      body.append(el("tr", {},
        el("td", { class: "num", text: String(i + 1) }),
        el("td", { text: b.name }),
        el("td", { text: b.mode }),
        el("td", { title: [...b.files, ...b.missing.map((m) => `missing: ${m}`)].join("\n") || null },
          String(b.files.length), b.missing.length ? el("span", { class: "tag broken", text: `${b.missing.length} missing` }) : null),
        el("td", { class: "num", text: String(b.bytes) }),
        el("td", { class: "num", text: String(b.tokens) }),
        el("td", { class: "num", text: b.cumulative === null ? "-" : String(b.cumulative) })));
    });
    table.append(body);
    card.append(table, el("p", {}, "Resident total: about ", el("b", { text: `${a.resident} tokens` }), "."));
    if (a.withheld) card.append(el("p", { class: "muted", text: `${plural(a.withheld, "listed file is", "listed files are")} private and not counted here; kb ui --all includes them.` }));
    if (a.costs.length) {
      const most = Math.max(...a.costs.map((c) => c.tokens), 1);
      const costs = el("table", { class: "grid" }, el("thead", {}, el("tr", {},
        el("th", { text: "changing this block" }), el("th", { text: "tokens prefilled again" }), el("th", {}))));
      const cb = el("tbody");
      for (const c of a.costs) {
        const bar = el("div", { class: "costbar" });
        bar.style.width = `${(100 * c.tokens) / most}%`;
        cb.append(el("tr", {}, el("td", { text: c.name }), el("td", { class: "num", text: String(c.tokens) }),
          el("td", { class: "costcell" }, bar)));
      }
      costs.append(cb);
      card.append(el("h3", { class: "section", text: "Worst-case cost of a change" }), costs,
        el("p", { class: "muted", text: "A change invalidates its own block and every block after it, because a prompt cache reuses a prompt only up to the first differing token: keep the most stable blocks first." }));
    }
    target.append(card);
  }
}

// -- conversation ---------------------------------------------------------------------------

function renderChat() {
  const target = document.getElementById("chat");
  if (target.dataset.ready === String(state.fleet.chat)) return;
  target.dataset.ready = String(state.fleet.chat);
  target.replaceChildren();
  if (!state.fleet.chat) {
    target.append(el("div", { class: "card" },
      el("h3", { class: "section", text: "No conversation runtime is configured" }),
      el("p", { text: "The panel runs your agent runtime's command line headless, with your message on its standard input, and shows what it streams back. None is set up, so nothing runs." }),
      el("p", {}, "To enable it, add a line to the fleet's ", el("code", { text: "fleet.txt" }), ", for example ",
        el("code", { text: "chat = claude -p --output-format stream-json --verbose" }),
        ", or set ", el("code", { text: "KB_UI_CHAT" }), " before starting ", el("code", { text: "kb ui" }), ", then press Reload.")));
    return;
  }
  const log = el("div", { class: "chat-log", id: "chat-log" });
  const input = el("textarea", { id: "chat-input", placeholder: "Message the fleet…", "aria-label": "Message" });
  const form = el("form", { class: "chat" }, input, el("button", { class: "primary", type: "submit", text: "Send" }));
  form.addEventListener("submit", (event) => { event.preventDefault(); send(input.value); input.value = ""; });
  target.append(el("p", { class: "muted", text: "Each message runs the configured runtime once, inside the fleet; its routing hook decides who answers." }), log, form);
}

function send(message) {
  if (state.chatBusy) return;
  const log = document.getElementById("chat-log");
  log.append(el("div", { class: "msg you", text: message }));
  state.chatBusy = true;
  const url = `/api/chat?m=${encodeURIComponent(message)}&chat=${encodeURIComponent(state.session)}&token=${encodeURIComponent(TOKEN)}`;
  const source = new EventSource(url);
  let current = null;
  source.onmessage = (event) => {
    const e = JSON.parse(event.data);
    if (e.kind === "session") { state.session = e.text; return; }
    if (e.kind === "done") {
      if (e.text) state.session = e.text;
      source.close();
      state.chatBusy = false;
      return;
    }
    if (e.kind === "assistant") {
      if (!current) { current = el("div", { class: "msg assistant" }); log.append(current); }
      current.textContent += (current.textContent ? "\n" : "") + e.text;
      return;
    }
    current = null;
    log.append(el("div", { class: `msg ${e.kind}`, text: e.kind === "tool" ? `tool: ${e.text}` : e.text }));
  };
  source.onerror = () => { source.close(); state.chatBusy = false; };
}

// -- routing --------------------------------------------------------------------------------

function go(hash) {
  if (location.hash === hash) route(); else location.hash = hash;
}

function route() {
  const hash = location.hash || "#ask";
  if (hash.startsWith("#read/")) {
    const parts = hash.slice(6).split("/").map(decodeURIComponent);
    openNote(parts[0], parts.slice(1).join("/"));
    return;
  }
  const [view, query] = hash.slice(1).split("?");
  const name = ["ask", "read", "check", "blocks", "chat"].includes(view) ? view : "ask";
  showView(name);
  if (name === "ask") {
    const q = new URLSearchParams(query || "").get("q");
    if (q !== null && q !== state.lastQ) ask(q);
    document.getElementById("question").focus();
  }
}

document.getElementById("ask-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const q = document.getElementById("question").value;
  state.lastQ = null;
  go(`#ask?q=${encodeURIComponent(q)}`);
});
document.getElementById("shelf-filter").addEventListener("input", renderShelves);
document.getElementById("reload").addEventListener("click", async () => {
  const button = document.getElementById("reload");
  button.disabled = true;
  button.textContent = "Reloading…";
  try {
    await api("/api/reload", { method: "POST", headers: { "X-KB-Token": TOKEN } });
    await loadAll();
    state.lastQ = null;
    route();
  } catch (e) {
    alert(`Reload failed: ${e.message}`);
  } finally {
    button.disabled = false;
    button.textContent = "Reload";
  }
});
window.addEventListener("hashchange", route);

loadAll().then(route).catch((e) => {
  document.getElementById("shelves").replaceChildren(el("p", { text: `The fleet could not be read: ${e.message}` }));
});
