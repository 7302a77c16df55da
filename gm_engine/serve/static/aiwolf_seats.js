// The AIWolf agent seats of the table, for its creator (P1's link): each seat's WebSocket
// address with its token, and whether its agent is connected. Every text goes in with
// textContent; the token travels in a header, as for the rest of the page.
"use strict";

(function () {
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
        headers: { authorization: "Bearer " + seatToken },
      });
      if (!answer.ok) return false;
      data = await answer.json();
    } catch (e) {
      return true;  // try again later
    }
    if (!data.seats.length) return false;
    const list = el("ul", undefined, "aiwolf-list");
    for (const seat of data.seats) {
      const item = el("li");
      const state = seat.connected === null ? "" : seat.connected ? "（接続中）" : "（未接続: ペルソナが代理）";
      item.append(el("span", "P" + seat.seat + " " + seat.name + state));
      const address = el("input");
      address.readOnly = true;
      address.value = seat.url;
      address.setAttribute("aria-label", "P" + seat.seat + " の接続先");
      item.append(address);
      list.append(item);
    }
    section.replaceChildren(
      el("h2", "AIWolfエージェントの接続先"),
      el("p", "各エージェントに自分の席のアドレスだけを渡してください（そのアドレスを持つ人はその席の情報を見られます）。", "hint"),
      list,
    );
    section.hidden = false;
    return true;
  }

  document.addEventListener("DOMContentLoaded", () => {
    const section = document.getElementById("aiwolf-seats");
    const parts = location.pathname.split("/");
    const tableId = decodeURIComponent(parts[parts.length - 1] || "");
    const seatToken = token() || localStorage.getItem("seat:" + tableId) || "";
    if (!section || !tableId || !seatToken) return;
    refresh(section, tableId, seatToken).then((again) => {
      if (again) setInterval(() => refresh(section, tableId, seatToken), 5000);
    });
  });
})();
