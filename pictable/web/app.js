// The pictable scoreboard page: follows the server's state over Server-Sent Events and
// redraws. Everything from the server is shown with textContent (never innerHTML): player
// names, card ids and phrases are data, not markup.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);

  // What tests and the curious can read: the version shown, and when (Date.now(), ms) each
  // version was drawn, to compare with the server's publish time.
  const page = {
    version: -1,
    boot: null,
    renderedAt: {},
    state: null,
    link: "connecting",
  };
  window.pictable = page;

  let source = null;
  let pollTimer = null;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function clock(t) {
    if (typeof t !== "number" || !isFinite(t)) return "";
    const s = Math.max(0, Math.floor(t));
    const m = Math.floor(s / 60);
    return m + ":" + String(s % 60).padStart(2, "0");
  }

  function setLink(state, text) {
    page.link = state;
    const node = $("link");
    node.dataset.state = state;
    node.textContent = text;
  }

  function renderRanking(state) {
    const list = $("ranking");
    const rows = state.ranking || [];
    list.replaceChildren();
    $("no-game").hidden = rows.length > 0;
    for (const row of rows) {
      const li = el("li", "row" + (row.winner ? " winner" : ""));
      li.dataset.player = row.name;
      li.append(el("span", "rank", row.rank));
      const who = el("span", "who");
      who.append(el("span", "name", row.name));
      if (row.winner) who.append(el("span", "star", "★ winner"));
      if (row.detail) who.append(el("span", "detail", row.detail));
      li.append(who);
      li.append(el("span", "score", row.score));
      list.append(li);
    }
  }

  // Five players, a banner and a call do not fit 720 pixels at full size: shrink the rows
  // step by step until the list fits its panel (a phone scrolls instead: nothing to do).
  function fitRanking() {
    const panel = document.querySelector(".scores");
    const list = $("ranking");
    list.classList.remove("compact", "tight");
    for (const step of ["compact", "tight"]) {
      if (panel.scrollHeight <= panel.clientHeight + 1) break;
      list.classList.add(step);
    }
  }

  function renderTurn(state) {
    const turn = state.turn;
    $("headline").textContent = turn ? turn.headline : "";
    const details = $("details");
    details.replaceChildren();
    for (const line of (turn && turn.details) || []) details.append(el("li", null, line));
    const cost = turn && typeof turn.cost === "number" ? turn.cost : null;
    $("cost").hidden = cost === null;
    if (cost !== null) {
      const fill = $("cost-fill");
      fill.style.width = Math.min(100, (cost / 10) * 100) + "%";
      fill.dataset.level = cost > 10 ? "over" : cost >= 8 ? "high" : cost >= 5 ? "mid" : "low";
      $("cost-label").textContent = "cost " + cost + " / 10";
    }
  }

  function renderEvents(state) {
    const list = $("events");
    list.replaceChildren();
    const events = (state.events || []).slice().reverse(); // newest first
    for (const ev of events) {
      const li = el("li", "event " + ev.status);
      li.dataset.seq = ev.seq;
      const when = clock(ev.t);
      if (when) li.append(el("span", "when", when));
      li.append(el("span", "text", ev.text));
      if (ev.status === "rejected") {
        li.append(el("span", "why", "rejected" + (ev.reason ? ": " + ev.reason : "")));
      } else if (ev.status === "undone") {
        li.append(el("span", "why", "undone"));
      }
      list.append(li);
    }
  }

  function renderExtra(state) {
    const extra = state.extra || {};
    const banner = $("banner");
    const text = typeof extra.banner === "string" ? extra.banner : "";
    if (banner.textContent !== text) {
      banner.textContent = text;
      // Restart the pulse for each new announcement.
      banner.classList.remove("fresh");
      void banner.offsetWidth;
      if (text) banner.classList.add("fresh");
    }
    banner.hidden = !text;
    const call = $("call");
    call.textContent = typeof extra.call === "string" ? extra.call : "";
    call.hidden = !call.textContent;

    const ask = extra.ask && typeof extra.ask === "object" ? extra.ask : null;
    $("ask").textContent = ask && ask.text ? String(ask.text) : "";
    $("ask").hidden = !$("ask").textContent;
    const actions = new Set(state.actions || []);
    const voting = ask !== null && ask.kind === "vote";
    $("undo").hidden = !actions.has("undo");
    $("confirm").hidden = !actions.has("confirm") || voting;
    $("reject").hidden = !actions.has("reject") || voting;
    $("vote-yes").hidden = !actions.has("vote") || !voting;
    $("vote-no").hidden = !actions.has("vote") || !voting;
  }

  function render(state) {
    // A restarted server counts from 0 again: a new boot id resets what we have seen.
    if (state.boot === page.boot && state.version <= page.version) return;
    page.boot = state.boot;
    page.version = state.version;
    page.state = state;
    document.title = state.title + " — " + state.status;
    $("title").textContent = state.title;
    const status = $("status");
    status.textContent = state.status;
    status.dataset.status = state.status;
    renderRanking(state);
    renderTurn(state);
    renderEvents(state);
    renderExtra(state);
    fitRanking();
    page.renderedAt[state.version] = Date.now();
    const old = state.version - 50;
    if (old in page.renderedAt) delete page.renderedAt[old];
  }

  // Following the server: SSE first; when the stream cannot be opened, poll and retry.

  function connect() {
    if (source) source.close();
    source = new EventSource("/api/events");
    source.onopen = () => {
      setLink("live", "live");
      stopPolling();
    };
    source.onmessage = (msg) => {
      try {
        render(JSON.parse(msg.data));
      } catch (err) {
        console.error("bad state from the server", err);
      }
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up (the server refused the stream): poll, and try again later.
        setLink("lost", "reconnecting…");
        startPolling();
        setTimeout(connect, 3000);
      } else {
        setLink("lost", "reconnecting…"); // EventSource retries by itself
      }
    };
  }

  async function poll() {
    try {
      const res = await fetch("/api/state", { cache: "no-store" });
      if (res.status === 403) {
        setLink("denied", "no access: open the address printed with the token");
        return;
      }
      if (res.ok) render(await res.json());
    } catch (err) {
      setLink("lost", "reconnecting…");
    }
  }

  function startPolling() {
    if (pollTimer === null) pollTimer = setInterval(poll, 2000);
  }

  function stopPolling() {
    if (pollTimer !== null) clearInterval(pollTimer);
    pollTimer = null;
  }

  // Corrections from the table.

  async function send(button) {
    const body = { action: button.dataset.action };
    const ask = page.state && page.state.extra && page.state.extra.ask;
    if (ask && typeof ask.id === "string" && body.action !== "undo") body.ask = ask.id;
    if (button.dataset.choice) body.choice = button.dataset.choice;
    const message = $("message");
    const buttons = document.querySelectorAll(".buttons button");
    buttons.forEach((b) => (b.disabled = true));
    message.textContent = "sending…";
    message.dataset.kind = "pending";
    try {
      const res = await fetch("/api/input", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
        cache: "no-store",
      });
      let answer = {};
      try {
        answer = await res.json();
      } catch (err) {
        answer = {};
      }
      if (res.ok) {
        message.textContent = answer.message ? String(answer.message) : button.textContent + ": sent";
        message.dataset.kind = "ok";
      } else {
        message.textContent = answer.error ? String(answer.error) : "refused (" + res.status + ")";
        message.dataset.kind = "error";
      }
    } catch (err) {
      message.textContent = "not sent: the table is not reachable";
      message.dataset.kind = "error";
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const button of document.querySelectorAll(".buttons button")) {
      button.addEventListener("click", () => send(button));
    }
    window.addEventListener("resize", fitRanking);
    poll();
    connect();
  });
})();
