// A table's page: the seat's view pushed by the server (server-sent events over fetch, so the
// token travels in a header), the panel, the question's buttons, the speech box. Every text
// from the server is inserted with textContent: a speech holding markup shows as text.
// Every word of the page's own is the catalogue's, in the table's language: the page comes
// with the words of the language it was served in (a JSON block), and fetches the table's
// (/api/strings/LOCALE) when the table speaks another.
"use strict";

const tableId = decodeURIComponent(location.pathname.split("/").pop());
const state = { epoch: null, lines: 0, token: "", ended: false, sending: false, resync: false, last: null };
let words = JSON.parse(document.getElementById("page-strings").textContent);

// a word of the page, its {placeholders} filled in
function t(key, params) {
  let text = words[key] === undefined ? key : words[key];
  for (const [name, value] of Object.entries(params || {})) text = text.split("{" + name + "}").join(String(value));
  return text;
}

// the page in the table's language: its words fetched, the page's own labels put anew
async function useLocale(locale) {
  if (!locale || locale === words.lang) return;
  const answer = await fetch("/api/strings/" + encodeURIComponent(locale));
  if (!answer.ok) return;
  words = await answer.json();
  localStorage.setItem("locale:" + tableId, words.lang);
  document.documentElement.lang = words.lang;
  document.title = t("table_title");
  for (const node of document.querySelectorAll("[data-text]")) node.textContent = t(node.dataset.text);
  for (const node of document.querySelectorAll("[data-label]")) node.setAttribute("aria-label", t(node.dataset.label));
  for (const node of document.querySelectorAll("[data-placeholder]")) node.placeholder = t(node.dataset.placeholder);
  document.dispatchEvent(new CustomEvent("gm-words", { detail: words }));
  if (state.last) apply(state.last);
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function readToken() {
  const match = /(?:^#|&)t=([^&]+)/.exec(location.hash);
  if (match) {
    const token = decodeURIComponent(match[1]);
    localStorage.setItem("seat:" + tableId, token);
    history.replaceState(null, "", location.pathname);  // the link is not left on screen
    return token;
  }
  return localStorage.getItem("seat:" + tableId) || "";
}

function headers(extra) {
  return Object.assign({ authorization: "Bearer " + state.token, "accept-language": words.lang }, extra || {});
}

function showError(text) {
  const node = document.getElementById("error");
  node.textContent = text || "";
  node.hidden = !text;
}

// the rules' record marks (【…】) are the same in every language; a note of P1's own starts
// as the catalogue's lines do
function lineClass(line) {
  if (line.startsWith("【ゲーム終了】")) return "line end";
  if (line.startsWith("【CMD_")) return "line cmd";
  if (line.startsWith("【")) return "line system";
  if (line.startsWith("GM:")) return "line gm";
  if ([t("note_open"), t("role_note"), t("partners_note")].some((mark) => mark && line.startsWith(mark))) return "line note";
  return "line";
}

function addLines(view) {
  const log = document.getElementById("log");
  if (view.epoch !== state.epoch || view.from === 0) {
    if (view.from === 0) {
      log.replaceChildren();
      state.lines = 0;
    }
    state.epoch = view.epoch;
  }
  if (view.from !== state.lines) {  // a gap (the table was rebuilt): read it again from the start
    state.resync = true;
    return;
  }
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  for (const line of view.lines) log.append(el("p", line, lineClass(line)));
  state.lines = view.line_count;
  if (atBottom || view.lines.length) log.scrollTop = log.scrollHeight;
}

function werewolfPanel(panel, node, asked) {
  const me = el("p", null, "me");
  me.append(el("span", t("day_time", { day: panel.day, time: panel.time })));
  if (panel.role) me.append(el("strong", t("your_role_line", { role: panel.role })));
  if (panel.partners && panel.partners.length) {
    me.append(el("span", t("partners_line", { names: panel.partners.join(t("list_separator")) })));
  }
  node.append(me);
  const seats = el("div", null, "seats");
  for (const seat of panel.seats) {
    let cls = "seat";
    if (!seat.alive) cls += " gone";
    if (seat.you) cls += " you";
    // the speaker is known as of the seat's last question only: once it is answered, others
    // speak and the mark would stay on the wrong seat
    if (seat.speaking && asked) cls += " speaking";
    const card = el("div", null, cls);
    card.dataset.seat = seat.seat;
    card.append(el("div", seat.label + " " + seat.name + (seat.you ? t("you_mark") : "")));
    card.append(el("div", seat.alive ? t("alive") : t("gone"), "alive"));
    if (seat.co) card.append(el("span", t("co_badge", { role: seat.co }), "co"));
    seats.append(card);
  }
  node.append(seats);
}

function sheetPanel(sheet, node) {
  const table = el("table", null, "party sheet");
  const head = el("tr");
  for (const name of [t("name"), "HP", sheet.target_number !== null ? "TN" : null].filter(Boolean)) head.append(el("th", name));
  table.append(head);
  const row = el("tr");
  row.append(el("td", t("name_with", { name: sheet.name, what: sheet.occupation })), el("td", sheet.hp));
  if (sheet.target_number !== null) row.append(el("td", sheet.target_number));
  table.append(row);
  node.append(table);
  const skills = sheet.skills.reduce((first, second) => t("skill_pair", { first: first, second: second }));
  node.append(el("p", t("skills_line", { skills: skills }), "me skills"));
}

function adventurePanel(panel, node) {
  if (panel.sheet) {
    sheetPanel(panel.sheet, node);
  } else if (!panel.party.length) {
    node.append(el("p", t("no_character"), "me"));
  } else {
    const table = el("table", null, "party");
    const head = el("tr");
    for (const name of [t("name"), "HP", t("ap_dice"), t("slots"), t("state")]) head.append(el("th", name));
    table.append(head);
    for (const c of panel.party) {
      const row = el("tr");
      for (const value of [t("name_with", { name: c.name, what: c.rank }), c.hp + "/" + c.max_hp, c.ap_dice,
        c.slots_left + "/" + c.max_slots, c.state]) row.append(el("td", value));
      table.append(row);
    }
    node.append(table);
  }
  if (panel.battle) node.append(el("p", t("in_battle", { battle: panel.battle }), "me"));
}

function showPanel(panel, asked) {
  const node = document.getElementById("panel");
  node.replaceChildren();
  if (!panel) return;
  if (panel.kind === "werewolf") werewolfPanel(panel, node, asked);
  else adventurePanel(panel, node);
}

function showQuestion(question) {
  const box = document.getElementById("question");
  box.hidden = !question;
  box.dataset.id = question ? question.id : "";
  if (!question) return;
  document.getElementById("prompt").textContent = question.prompt;
  const buttons = document.getElementById("buttons");
  buttons.replaceChildren();
  // a CO with a result (占い師CO（P3 ヒミヤ 白）…) comes in one per seat and colour: they are
  // folded under one line per role (the button's fold), so that a phone shows the speech box
  // without scrolling
  const folds = new Map();
  for (const b of question.buttons) {
    const button = el("button", b.label);
    button.type = "button";
    button.dataset.group = b.group;
    button.dataset.send = b.send;
    button.addEventListener("click", () => send(b.send));
    if (!b.fold) { buttons.append(button); continue; }
    const head = b.fold.head;
    if (!folds.has(head)) {
      const fold = el("details", null, "fold");
      fold.append(el("summary", t("fold", { head: head })));
      folds.set(head, fold);
      buttons.append(fold);
    }
    button.textContent = b.fold.choice;
    button.title = b.label;
    folds.get(head).append(button);
  }
  document.getElementById("say").hidden = !question.free_text;
}

function showEnd(view) {
  const ended = ["finished", "failed", "stopped", "error"].includes(view.status);
  const end = document.getElementById("end");
  end.hidden = !ended;
  document.getElementById("end-message").textContent = view.message || "";
  document.getElementById("download").hidden = view.status !== "finished";
  state.ended = ended;
}

function statusWord(status) {
  return words["status_" + status] === undefined ? status : t("status_" + status);
}

function apply(view) {
  state.last = view;
  document.getElementById("title").textContent = view.title;
  document.title = view.title + " — gm serve";
  document.getElementById("status").textContent = statusWord(view.status);
  addLines(view);
  document.body.dataset.status = view.status;
  showPanel(view.panel, Boolean(view.question));
  showQuestion(view.question);
  // the table's own limit of a line (the rules' limit of a speech at a werewolf table)
  if (view.input_limit) document.getElementById("text").maxLength = view.input_limit;
  showEnd(view);
}

async function send(text) {
  if (state.sending) return;
  state.sending = true;
  const error = document.getElementById("answer-error");
  error.hidden = true;
  for (const b of document.querySelectorAll("#question button")) b.disabled = true;
  const asked = document.getElementById("question").dataset.id;
  try {
    const answer = await fetch("/api/tables/" + encodeURIComponent(tableId) + "/answer", {
      method: "POST", headers: headers({ "content-type": "application/json" }), body: JSON.stringify({ text: text }),
    });
    const data = await answer.json();
    if (!answer.ok) {
      error.textContent = data.error || t("send_failed");
      error.hidden = false;
    } else {
      if (text === document.getElementById("text").value) document.getElementById("text").value = "";
      // the question answered is over; a newer one may already be on screen
      if (document.getElementById("question").dataset.id === asked) showQuestion(null);
    }
  } catch (e) {
    error.textContent = t("send_failed");
    error.hidden = false;
  } finally {
    state.sending = false;
    for (const b of document.querySelectorAll("#question button")) b.disabled = false;
  }
}

async function follow() {
  // the event stream, read with fetch (EventSource cannot send the token in a header)
  while (true) {
    try {
      const answer = await fetch("/api/tables/" + encodeURIComponent(tableId) + "/events?after=" + state.lines,
        { headers: headers() });
      if (answer.status === 403) { showError(t("not_this_seat")); return; }
      if (!answer.ok) {
        const data = await answer.json().catch(() => ({}));
        showError(data.error || t("unreachable"));
      } else {
        showError("");
        const reader = answer.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        while (true) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let cut;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const chunk = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const data = chunk.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
            if (data) {
              const view = JSON.parse(data);
              if (view.locale && view.locale !== words.lang) await useLocale(view.locale);
              apply(view);
            }
          }
          if (state.resync) {
            state.resync = false;
            state.lines = 0;
            reader.cancel();
            break;
          }
        }
        if (state.ended && document.body.dataset.status === "finished") return;
      }
    } catch (e) {
      showError(t("reconnecting"));
    }
    await new Promise((r) => setTimeout(r, 1500));
  }
}

async function download() {
  const answer = await fetch("/api/tables/" + encodeURIComponent(tableId) + "/transcript", { headers: headers() });
  if (!answer.ok) { showError(t("transcript_not_yet")); return; }
  const blob = await answer.blob();
  const link = el("a");
  link.href = URL.createObjectURL(blob);
  link.download = "table-" + tableId + ".jsonl";
  document.body.append(link);
  link.click();
  link.remove();
}

document.addEventListener("DOMContentLoaded", async () => {
  state.token = readToken();
  // the language this table was seen in before (the lobby that opened it, an earlier visit)
  await useLocale(localStorage.getItem("locale:" + tableId)).catch(() => {});
  if (!state.token) { showError(t("open_from_link")); return; }
  document.getElementById("say").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = document.getElementById("text").value;
    if (text.trim()) send(text);
  });
  document.getElementById("text").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      document.getElementById("say").requestSubmit();
    }
  });
  document.getElementById("download").addEventListener("click", download);
  follow();
});
