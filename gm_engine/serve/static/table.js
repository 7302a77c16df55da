// A table's page: the seat's view pushed by the server (server-sent events over fetch, so the
// token travels in a header), the panel, the question's buttons, the speech box. Every text
// from the server is inserted with textContent: a speech holding markup shows as text.
"use strict";

const tableId = decodeURIComponent(location.pathname.split("/").pop());
const state = { epoch: null, lines: 0, token: "", ended: false, sending: false, resync: false };

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
  return Object.assign({ authorization: "Bearer " + state.token }, extra || {});
}

function showError(text) {
  const node = document.getElementById("error");
  node.textContent = text || "";
  node.hidden = !text;
}

function lineClass(line) {
  if (line.startsWith("【ゲーム終了】")) return "line end";
  if (line.startsWith("【CMD_")) return "line cmd";
  if (line.startsWith("【")) return "line system";
  if (line.startsWith("GM:")) return "line gm";
  if (line.startsWith("（") || line.startsWith("あなたの役職") || line.startsWith("仲間の人狼")) return "line note";
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
  me.append(el("span", panel.day + "日目 " + panel.time + "　"));
  if (panel.role) me.append(el("strong", "あなたの役職: " + panel.role));
  if (panel.partners && panel.partners.length) me.append(el("span", "　仲間の人狼: " + panel.partners.join("、")));
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
    card.append(el("div", seat.label + " " + seat.name + (seat.you ? "（あなた）" : "")));
    card.append(el("div", seat.alive ? "生存" : "退席", "alive"));
    if (seat.co) card.append(el("span", seat.co + "CO", "co"));
    seats.append(card);
  }
  node.append(seats);
}

function sheetPanel(sheet, node) {
  const table = el("table", null, "party sheet");
  const head = el("tr");
  for (const name of ["名前", "HP", sheet.target_number !== null ? "TN" : null].filter(Boolean)) head.append(el("th", name));
  table.append(head);
  const row = el("tr");
  row.append(el("td", sheet.name + "（" + sheet.occupation + "）"), el("td", sheet.hp));
  if (sheet.target_number !== null) row.append(el("td", sheet.target_number));
  table.append(row);
  node.append(table);
  node.append(el("p", "技能: " + sheet.skills.join("　"), "me skills"));
}

function adventurePanel(panel, node) {
  if (panel.sheet) {
    sheetPanel(panel.sheet, node);
  } else if (!panel.party.length) {
    node.append(el("p", "（キャラクターはまだいません）", "me"));
  } else {
    const table = el("table", null, "party");
    const head = el("tr");
    for (const name of ["名前", "HP", "APダイス", "魔法スロット", "状態"]) head.append(el("th", name));
    table.append(head);
    for (const c of panel.party) {
      const row = el("tr");
      for (const value of [c.name + "（" + c.rank + "）", c.hp + "/" + c.max_hp, c.ap_dice,
        c.slots_left + "/" + c.max_slots, c.state]) row.append(el("td", value));
      table.append(row);
    }
    node.append(table);
  }
  if (panel.battle) node.append(el("p", "戦闘中: " + panel.battle, "me"));
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
  // folded under one line per role, so that a phone shows the speech box without scrolling
  const folds = new Map();
  for (const b of question.buttons) {
    const button = el("button", b.label);
    button.type = "button";
    button.dataset.group = b.group;
    button.dataset.send = b.send;
    button.addEventListener("click", () => send(b.send));
    const cut = b.group === "co" ? b.label.indexOf("（") : -1;
    if (cut < 0) { buttons.append(button); continue; }
    const head = b.label.slice(0, cut);
    if (!folds.has(head)) {
      const fold = el("details", null, "fold");
      fold.append(el("summary", head + "（相手と結果を選ぶ）"));
      folds.set(head, fold);
      buttons.append(fold);
    }
    button.textContent = b.label.slice(cut + 1, -1);
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

const STATUS = { starting: "準備中", running: "進行中", finished: "終了", failed: "続行不能", stopped: "中断", error: "停止中" };

function apply(view) {
  document.getElementById("title").textContent = view.title;
  document.title = view.title + " — gm serve";
  document.getElementById("status").textContent = STATUS[view.status] || view.status;
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
      error.textContent = data.error || "送れませんでした。";
      error.hidden = false;
    } else {
      if (text === document.getElementById("text").value) document.getElementById("text").value = "";
      // the question answered is over; a newer one may already be on screen
      if (document.getElementById("question").dataset.id === asked) showQuestion(null);
    }
  } catch (e) {
    error.textContent = "送れませんでした。";
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
      if (answer.status === 403) { showError("この卓の席のリンクではありません。"); return; }
      if (!answer.ok) {
        const data = await answer.json().catch(() => ({}));
        showError(data.error || "つながりません。");
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
            if (data) apply(JSON.parse(data));
          }
          if (state.resync) {
            state.resync = false;
            state.lines = 0;
            reader.cancel();
            break;
          }
        }
        if (state.ended && document.getElementById("status").textContent === STATUS.finished) return;
      }
    } catch (e) {
      showError("接続が切れました。つなぎ直しています…");
    }
    await new Promise((r) => setTimeout(r, 1500));
  }
}

async function download() {
  const answer = await fetch("/api/tables/" + encodeURIComponent(tableId) + "/transcript", { headers: headers() });
  if (!answer.ok) { showError("記録はまだダウンロードできません。"); return; }
  const blob = await answer.blob();
  const link = el("a");
  link.href = URL.createObjectURL(blob);
  link.download = "table-" + tableId + ".jsonl";
  document.body.append(link);
  link.click();
  link.remove();
}

document.addEventListener("DOMContentLoaded", () => {
  state.token = readToken();
  if (!state.token) { showError("席のリンク（#t=…）から開いてください。"); return; }
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
