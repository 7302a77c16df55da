// The lobby: open tables, and the form that opens one. Every text is inserted with textContent;
// every word is the catalogue's, in the lobby's language (the page's JSON block).
"use strict";

const words = JSON.parse(document.getElementById("page-strings").textContent);

function t(key) {
  return words[key] === undefined ? key : words[key];
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function tableItem(table, seatLabel) {
  const item = el("li");
  item.dataset.table = table.table_id;
  item.append(el("span", table.kind === "werewolf" ? t("kind_werewolf_prefix") : t("kind_adventure_prefix")),
    el("span", table.title));
  if (table.summary) item.append(el("span", "　" + table.summary, "summary"));
  const mine = localStorage.getItem("seat:" + table.table_id);
  if (mine) {
    const link = el("a", seatLabel);
    link.href = "/play/" + encodeURIComponent(table.table_id) + "#t=" + encodeURIComponent(mine);
    item.append(link);
  }
  return item;
}

async function loadTables() {
  const list = document.getElementById("tables");
  const none = document.getElementById("no-tables");
  const ended = document.getElementById("finished");
  const noneEnded = document.getElementById("no-finished");
  try {
    const answer = await fetch("/api/tables");
    const data = await answer.json();
    list.replaceChildren(...data.tables.map((row) => tableItem(row, t("your_seat"))));
    none.hidden = data.tables.length > 0;
    const finished = data.finished || [];
    ended.replaceChildren(...finished.map((row) => tableItem(row, t("your_seat_finished"))));
    noneEnded.hidden = finished.length > 0;
    showModelServers(data.model_servers || []);
  } catch (e) {
    none.hidden = false;
  }
}

// The operator's list of model servers (gm serve --model-server): the only ones a table may use.
function showModelServers(servers) {
  const select = document.getElementById("model-servers");
  const chosen = select.value;
  select.replaceChildren(...servers.map((url) => {
    const option = el("option", url);
    option.value = url;
    return option;
  }));
  if (servers.includes(chosen)) select.value = chosen;
  document.getElementById("backend-openai").disabled = servers.length === 0;
  document.getElementById("no-model-servers").hidden = servers.length > 0;
}

function config(form) {
  const data = new FormData(form);
  const kind = data.get("kind");
  const backend = data.get("backend");
  const result = { kind: kind, backend: backend, locale: data.get("locale") || words.lang };
  const title = String(data.get("title") || "").trim();
  if (title) result.title = title;
  if (backend === "openai") {
    result.model = String(data.get("model") || "").trim() || null;
    result.base_url = String(data.get("base_url") || "").trim() || null;
  }
  if (kind === "werewolf") {
    const role = data.get("role");
    if (role) result.role = Number(role);
    // the lobby's default name left as it is: the table's language names P1 (Player, プレイヤー)
    const name = String(data.get("human_name") || "").trim();
    if (name && name !== t("default_name")) result.human_name = name;
    result.narrator = data.get("narrator") === "on";
    result.rules = {
      discussion_rounds: Number(data.get("discussion_rounds") || 2),
      madman_claims: data.get("madman_claims"),
      attack_needs_execution: data.get("attack_from_first_night") !== "on",
    };
    const agentSeats = data.getAll("aiwolf_seat").map(Number);
    if (agentSeats.length) result.aiwolf = { seats: agentSeats };
  } else {
    result.scenario = data.get("scenario");
  }
  return result;
}

function showKind(form) {
  const kind = new FormData(form).get("kind");
  document.getElementById("werewolf-options").hidden = kind !== "werewolf";
  document.getElementById("adventure-options").hidden = kind !== "adventure";
  document.getElementById("aiwolf-options").hidden = kind !== "werewolf";
  document.getElementById("openai-options").hidden = new FormData(form).get("backend") !== "openai";
}

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("create");
  form.querySelector("select[name=locale]").value = words.lang;
  form.addEventListener("change", () => showKind(form));
  showKind(form);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = document.getElementById("create-error");
    error.hidden = true;
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const apiKey = String(new FormData(form).get("api_key") || "");
      const body = { config: config(form) };
      if (apiKey && body.config.backend === "openai") body.api_key = apiKey;
      const answer = await fetch("/api/tables", {
        method: "POST", headers: { "content-type": "application/json", "accept-language": words.lang },
        body: JSON.stringify(body),
      });
      const data = await answer.json();
      if (!answer.ok) throw new Error(data.error || t("cannot_open"));
      localStorage.setItem("seat:" + data.table_id, data.token);
      localStorage.setItem("locale:" + data.table_id, body.config.locale);
      const link = document.getElementById("join-link");
      link.href = data.join;
      document.getElementById("join-url").value = new URL(data.join, location.href).href;
      document.getElementById("created").hidden = false;
      loadTables();
    } catch (e) {
      error.textContent = e.message;
      error.hidden = false;
    } finally {
      button.disabled = false;
    }
  });
  loadTables();
});
