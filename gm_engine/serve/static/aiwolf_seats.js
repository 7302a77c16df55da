// The AIWolf agent seats of the table, for its creator (P1's link): each seat's WebSocket
// address with its token, and whether its agent is connected. Every text goes in with
// textContent; the token travels in a header, as for the rest of the page. Its words are the
// page's (the catalogue's, in the table's language: table.js says when they change).
"use strict";

(function () {
  let words = JSON.parse(document.getElementById("page-strings").textContent);
  let last = null;

  function t(key, params) {
    let text = words[key] === undefined ? key : words[key];
    for (const [name, value] of Object.entries(params || {})) text = text.split("{" + name + "}").join(String(value));
    return text;
  }

  function token() {
    const match = /(?:^#|&)t=([^&]+)/.exec(location.hash);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  async function refresh(section, tableId, seatToken) {
    let data;
    try {
      const answer = await fetch("/api/tables/" + encodeURIComponent(tableId) + "/aiwolf", {
        headers: { authorization: "Bearer " + seatToken, "accept-language": words.lang },
      });
      if (!answer.ok) return false;
      data = await answer.json();
    } catch (e) {
      return true;  // try again later
    }
    if (!data.seats.length) return false;
    last = data;
    show(section, data);
    return true;
  }

  function show(section, data) {
    const list = el("ul", undefined, "aiwolf-list");
    for (const seat of data.seats) {
      const item = el("li");
      const state = seat.connected === null ? "" : seat.connected ? t("aiwolf_connected") : t("aiwolf_waiting");
      item.append(el("span", "P" + seat.seat + " " + seat.name + state));
      const address = el("input");
      address.readOnly = true;
      address.value = seat.url;
      address.setAttribute("aria-label", t("aiwolf_address", { seat: "P" + seat.seat }));
      item.append(address);
      list.append(item);
    }
    section.replaceChildren(
      el("h2", t("aiwolf_addresses")),
      el("p", t("aiwolf_seat_hint"), "hint"),
      list,
    );
    section.hidden = false;
  }

  document.addEventListener("DOMContentLoaded", () => {
    const section = document.getElementById("aiwolf-seats");
    const parts = location.pathname.split("/");
    const tableId = decodeURIComponent(parts[parts.length - 1] || "");
    const seatToken = token() || localStorage.getItem("seat:" + tableId) || "";
    if (!section || !tableId || !seatToken) return;
    document.addEventListener("gm-words", (event) => {
      words = event.detail;
      if (last) show(section, last);
    });
    refresh(section, tableId, seatToken).then((again) => {
      if (again) setInterval(() => refresh(section, tableId, seatToken), 5000);
    });
  });
})();
