// hap2mqtt's web page: plain JavaScript, no build step, nothing fetched but this gateway's own API.
// Every action is an API call that runs the same operation as MQTT (a /set, a bridge request); values and
// availability come live over /api/events (Server-Sent Events). The DOM is built with textContent only,
// so no name or value from an accessory is ever read as HTML.
"use strict";

const main = document.getElementById("main");
const state = { accessory: null, view: null, notice: null };

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch("/api/" + path, options);
  } catch (error) {
    return { ok: false, status: 0, body: { status: "error", error: "the gateway cannot be reached" } };
  }
  if (response.status === 401) { location.reload(); }
  let parsed = null;
  try { parsed = await response.json(); } catch (error) { parsed = { status: "error", error: response.statusText }; }
  return { ok: response.ok, status: response.status, body: parsed };
}

function when(iso) {
  if (!iso) return "none yet";
  const date = new Date(iso);
  return date.toLocaleString();
}

function availability(accessory) {
  return el("span", { class: "badge " + (accessory.reachable ? "online" : "offline"), "data-availability": accessory.id },
    accessory.reachable ? "online" : "offline");
}

// ---- the accessory list ----

async function showList() {
  state.view = "accessories";
  const answer = await api("GET", "accessories");
  if (state.view !== "accessories") return;
  const carried = state.notice;
  state.notice = null;
  main.replaceChildren(
    el("div", { class: "heading" }, el("h1", {}, "Accessories"),
      el("button", { class: "secondary", id: "refresh-all", onclick: () => refresh(null) }, "Refresh all")),
    el("div", { id: "outcome" }, carried ? notice(carried.text, carried.kind) : null));
  if (!answer.ok) { main.append(notice(answer.body.error, "error")); return; }
  if (answer.body.length === 0) {
    main.append(el("p", { class: "empty" }, "No accessories yet. ", el("a", { href: "#/pair" }, "Pair one.")));
    return;
  }
  main.append(el("div", { class: "cards", id: "accessories" }, answer.body.map(card)));
}

function card(accessory) {
  return el("a", { class: "card accessory", href: "#/accessory/" + encodeURIComponent(accessory.slug), "data-slug": accessory.slug, "data-id": accessory.id },
    el("div", { class: "name" }, accessory.name, " ", availability(accessory)),
    el("div", { class: "meta" }, [accessory.home, accessory.room].filter(Boolean).join(" · ") || "no room"),
    accessory.reachable ? null : el("div", { class: "meta reason" }, accessory.reason || "unreachable"),
    accessory.address ? el("div", { class: "meta" }, accessory.address) : null,
    el("div", { class: "meta" }, "last event: ", el("span", { "data-last-event": accessory.id }, when(accessory.last_event))));
}

// ---- one accessory ----

const numeric = new Set(["uint8", "uint16", "uint32", "uint64", "int", "float"]);

async function showAccessory(slug) {
  state.view = "accessory";
  const answer = await api("GET", "accessories/" + encodeURIComponent(slug));
  if (state.view !== "accessory") return;
  if (!answer.ok) { main.replaceChildren(el("h1", {}, slug), notice(answer.body.error, "error")); return; }
  const accessory = answer.body;
  state.accessory = accessory;
  const reason = accessory.reachable ? null : el("div", { class: "meta reason", id: "reason" }, accessory.reason || "unreachable");
  main.replaceChildren(...[
    el("h1", {}, accessory.name, " ", availability(accessory)),
    reason,
    el("p", { class: "meta" }, [accessory.manufacturer, accessory.model, accessory.room].filter(Boolean).join(" · "),
      " · topic ", el("code", {}, accessory.topic)),
    actions(accessory),
    el("div", { id: "outcome" }),
    accessory.services.map((service) => serviceCard(accessory, service)),
  ].flat().filter(Boolean));
}

function actions(accessory) {
  const name = el("input", { name: "to", value: accessory.slug, "aria-label": "new name", size: 16, maxlength: 64, id: "rename-to" });
  return el("div", { class: "actions" },
    el("button", { class: "secondary", id: "identify", onclick: () => bridge("identify", { accessory: accessory.slug }, "Identify sent.") }, "Identify"),
    el("form", { id: "rename", onsubmit: async (event) => {
      event.preventDefault();
      const done = await bridge("rename", { accessory: accessory.slug, to: name.value }, "Renamed.");
      if (done) location.hash = "#/accessory/" + encodeURIComponent(done.accessory);
    } }, name, el("button", { type: "submit", class: "secondary" }, "Rename")),
    el("button", { class: "secondary", id: "refresh", onclick: () => refresh(accessory.slug) }, "Refresh"),
    el("button", { class: "danger", id: "unpair", onclick: () => confirmUnpair(accessory) }, "Unpair…"));
}

// Refresh (bridge/request/refresh): the accessories and every value fetched again from the accessory
// server of `slug`, or from every one for null.
async function refresh(slug) {
  const done = await bridge("refresh", slug ? { accessory: slug } : {}, null);
  if (!done) return;
  const servers = done.accessory_servers;
  const outcome = document.getElementById("outcome");
  if (outcome) outcome.replaceChildren(notice(servers.length === 0 ? "Nothing to refresh."
    : "Refreshed " + servers.join(", ") + ".", "ok"));
}

// Unpair (bridge/request/unpair) after a confirmation: the pairing is the accessory server's, so every
// accessory of that server goes; the step names them.
async function confirmUnpair(accessory) {
  const outcome = document.getElementById("outcome");
  if (!outcome) return;
  const server = accessory.id.split("/")[0];
  const list = await api("GET", "accessories");
  const siblings = list.ok ? list.body.filter((a) => a.id.split("/")[0] === server).map((a) => a.name) : [accessory.name];
  const force = el("input", { type: "checkbox", id: "unpair-force" });
  const box = el("div", { class: "confirm", id: "unpair-confirmation", role: "alertdialog", "aria-labelledby": "unpair-question" },
    el("p", { id: "unpair-question" }, "Unpair ", el("strong", {}, accessory.name), "? The pairing is removed on the accessory and here, and every topic of it is cleared",
      siblings.length > 1 ? ". Its accessory server's other accessories go too: " + siblings.filter((n) => n !== accessory.name).join(", ") + "." : "."),
    el("label", { class: "check" }, force, " Forget it here even if the accessory cannot be reached"),
    el("div", { class: "buttons" },
      el("button", { class: "danger", id: "unpair-confirm", onclick: async (event) => {
        event.target.disabled = true;
        const done = await bridge("unpair", { accessory: accessory.slug, force: force.checked }, null);
        if (!done) { event.target.disabled = false; return; }
        const how = { removed: "", already_removed_on_accessory: " (it had already forgotten this gateway)",
          removed_here_only: " here only: " + (done.reason || "the accessory could not be told") };
        state.notice = { text: "Unpaired " + done.name + (how[done.outcome] || "") + ".", kind: "ok" };
        location.hash = "#/";
      } }, "Unpair"),
      el("button", { class: "secondary", id: "unpair-cancel", onclick: () => outcome.replaceChildren() }, "Cancel")));
  outcome.replaceChildren(box);
}

async function bridge(command, request, success) {
  const outcome = document.getElementById("outcome");
  const answer = await api("POST", "bridge/request/" + command, request);
  if (outcome && (success || !answer.ok)) {
    outcome.replaceChildren(notice(answer.ok ? success : answer.body.error, answer.ok ? "ok" : "error"));
  }
  return answer.ok ? answer.body.data : null;
}

function notice(text, kind) {
  return el("div", { class: "notice " + kind, role: kind === "error" ? "alert" : "status" }, text);
}

function serviceCard(accessory, service) {
  return el("section", { class: "service", "data-service": service.slug },
    el("h2", {}, service.name || service.type),
    service.characteristics.map((c) => characteristicRow(accessory, service, c)));
}

function characteristicRow(accessory, service, c) {
  const value = accessory.values[String(c.iid)];
  const writable = c.perms.includes("pw");
  const key = service.slug + "/" + c.slug;
  const result = el("div", { class: "result", "data-result": key });
  const row = el("div", { class: "row", id: "c-" + c.iid, "data-characteristic": key, "data-iid": c.iid },
    el("div", { class: "label" }, c.name || c.slug, c.unit ? el("small", {}, c.unit) : null),
    el("div", { class: "control" }, control(accessory, c, value, writable, result)),
    result);
  return row;
}

function control(accessory, c, value, writable, result) {
  const write = (payload) => send(accessory, c, payload, result);
  if (!writable) {
    const shown = el("span", { class: "value" }, display(c, value));
    shown.setValue = (v) => { shown.textContent = display(c, v); };
    return [shown];
  }
  if (c.format === "bool") {
    const box = el("input", { type: "checkbox", class: "switch", role: "switch", "aria-label": c.name || c.slug });
    box.checked = value === "true";
    box.addEventListener("change", () => write(box.checked));
    box.setValue = (v) => { box.checked = v === "true"; };
    return [box];
  }
  if (c.valid_values && Object.keys(c.valid_values).length > 0) {
    const select = el("select", { "aria-label": c.name || c.slug },
      Object.entries(c.valid_values).sort((a, b) => a[1] - b[1]).map(([label, v]) => el("option", { value: v }, label)));
    select.value = value;
    select.addEventListener("change", () => write(Number(select.value)));
    select.setValue = (v) => { select.value = v; };
    return [select];
  }
  if (numeric.has(c.format)) {
    const number = el("input", { type: "number", step: c.step ?? "any", "aria-label": (c.name || c.slug) + " value" });
    number.value = value ?? "";
    number.addEventListener("change", () => { if (number.value !== "") write(Number(number.value)); });
    if (c.min !== undefined && c.max !== undefined && c.min !== null && c.max !== null) {
      const slider = el("input", { type: "range", min: c.min, max: c.max, step: c.step ?? "any", "aria-label": c.name || c.slug });
      slider.value = value ?? c.min;
      slider.addEventListener("input", () => { number.value = slider.value; });
      slider.addEventListener("change", () => write(Number(slider.value)));
      slider.setValue = (v) => { if (document.activeElement !== slider) slider.value = v; if (document.activeElement !== number) number.value = v; };
      return [slider, number];
    }
    number.setValue = (v) => { if (document.activeElement !== number) number.value = v; };
    return [number];
  }
  const text = el("input", { type: "text", "aria-label": c.name || c.slug, maxlength: c.max_length ?? null });
  text.value = value ?? "";
  const button = el("button", { type: "button", class: "secondary", onclick: () => write(text.value) }, "Set");
  text.setValue = (v) => { if (document.activeElement !== text) text.value = v ?? ""; };
  return [text, button];
}

function display(c, value) {
  if (value === null || value === undefined) return "—";
  if (c.valid_values) {
    const name = Object.entries(c.valid_values).find(([, v]) => String(v) === value);
    if (name) return name[0];
  }
  return c.unit ? value + " " + unitName(c.unit) : value;
}

function unitName(unit) {
  return { celsius: "°C", percentage: "%", arcdegrees: "°", lux: "lx", seconds: "s" }[unit] || unit;
}

async function send(accessory, c, payload, result) {
  result.className = "result";
  result.textContent = "writing…";
  const answer = await api("POST", "accessories/" + encodeURIComponent(accessory.slug) + "/characteristics/" + c.iid, { value: payload });
  if (answer.ok) {
    result.className = "result ok";
    result.textContent = "ok: " + display(c, answer.body.value);
    applyValue(accessory.id, c.iid, answer.body.value);
  } else {
    result.className = "result error";
    result.textContent = answer.body.error;
    const current = state.accessory && state.accessory.values[String(c.iid)];
    applyValue(accessory.id, c.iid, current);
  }
}

function applyValue(id, iid, value) {
  if (!state.accessory || state.accessory.id !== id || state.view !== "accessory") return;
  state.accessory.values[String(iid)] = value;
  const row = document.getElementById("c-" + iid);
  if (!row) return;
  const controls = row.querySelector(".control");
  for (const node of controls.children) if (node.setValue) { node.setValue(value); break; }
}

// ---- pairing: the accessories seen on the network, and the form ----

async function showPair() {
  state.view = "pair";
  const answer = await api("GET", "discovered");
  if (state.view !== "pair") return;
  const code = el("input", { id: "pair-code", name: "code", required: true, autocomplete: "off", inputmode: "numeric",
    placeholder: "XXX-XX-XXX", maxlength: 10, size: 12, "aria-label": "setup code", spellcheck: "false" });
  const host = el("input", { id: "pair-host", name: "host", placeholder: "192.168.1.20", "aria-label": "host", size: 16 });
  const port = el("input", { id: "pair-port", name: "port", type: "number", min: 1, max: 65535, placeholder: "51826", "aria-label": "port" });
  const name = el("input", { id: "pair-name", name: "name", maxlength: 64, "aria-label": "name (optional)", placeholder: "optional" });
  const chosen = el("input", { type: "hidden", id: "pair-id", name: "id" });
  const target = el("div", { class: "meta", id: "pair-target" }, "an accessory by its address");
  const address = el("div", { class: "fields", id: "pair-address" },
    el("label", {}, "Host", host), el("label", {}, "Port", port));
  const submit = el("button", { type: "submit", id: "pair-submit" }, "Pair");
  const form = el("form", { class: "card pair-form", id: "pair-form", autocomplete: "off", onsubmit: async (event) => {
    event.preventDefault();
    const request = chosen.value ? { id: chosen.value } : { host: host.value.trim(), port: Number(port.value) };
    if (!chosen.value && (request.host === "" || port.value === "")) {
      outcome.replaceChildren(notice("give the accessory's host and port, or choose one seen on the network", "error"));
      return;
    }
    request.code = code.value;
    code.value = "";  // the setup code is not kept in the page
    if (name.value.trim() !== "") request.name = name.value.trim();
    submit.disabled = true;
    outcome.replaceChildren(notice("Pairing… this takes a few seconds.", "pending"));
    const done = await api("POST", "bridge/request/pair", request);
    delete request.code;
    submit.disabled = false;
    if (!done.ok) { outcome.replaceChildren(notice(done.body.error, "error")); return; }
    const data = done.body.data;
    outcome.replaceChildren(notice(el("span", {}, "Paired " + data.name + " (" + data.id + ") at " + data.host + ":" + data.port
      + (data.replaced ? ", replacing " + (data.replaced_name || "its old pairing") : "") + ". ",
      el("a", { href: "#/" }, "See its accessories.")), "ok"));
    choose(null);
  } },
  el("h2", {}, "Pair"), target, chosen, address,
  el("div", { class: "fields" }, el("label", {}, "Setup code", code), el("label", {}, "Name", name)),
  el("div", { class: "buttons" }, submit,
    el("button", { type: "button", class: "secondary", id: "pair-by-address", onclick: () => choose(null) }, "By address")));
  const outcome = el("div", { id: "pair-outcome" });
  function choose(accessory) {
    chosen.value = accessory ? accessory.id : "";
    address.hidden = Boolean(accessory);
    target.textContent = accessory ? accessory.name + " (" + accessory.id + ")" : "an accessory by its address";
    if (accessory) code.focus();
  }
  state.choose = choose;
  main.replaceChildren(el("h1", {}, "Pair an accessory"),
    el("section", { id: "discovered-section" }, el("h2", {}, "Seen on the network"), el("div", { id: "discovered" })),
    form, outcome);
  showDiscovered(answer.ok ? answer.body : { discovery: false, accessories: [] });
}

function showDiscovered(list) {
  const box = document.getElementById("discovered");
  if (!box || state.view !== "pair") return;
  if (!list.discovery) {
    box.replaceChildren(el("p", { class: "empty" }, "Discovery is off (homekit.discovery): pair by host and port below."));
    return;
  }
  if (list.accessories.length === 0) {
    box.replaceChildren(el("p", { class: "empty" }, "No unpaired accessory is announcing itself on the network."));
    return;
  }
  box.replaceChildren(el("div", { class: "cards" }, list.accessories.map((a) =>
    el("div", { class: "card discovered", "data-id": a.id },
      el("div", { class: "name" }, a.name, " ", a.paired_elsewhere ? el("span", { class: "badge offline" }, "paired elsewhere") : null),
      el("div", { class: "meta" }, [a.model, a.category].filter(Boolean).join(" · ")),
      el("div", { class: "meta" }, (a.address || "no usable address") + ":" + a.port, " · ", a.id),
      el("button", { class: "secondary", onclick: () => state.choose(a), disabled: a.paired_elsewhere || null }, "Pair…")))));
}

// ---- health (bridge/health) ----

async function showHealth() {
  state.view = "health";
  const [health, list] = await Promise.all([api("GET", "health"), api("GET", "accessories")]);
  if (state.view !== "health") return;
  const heading = el("div", { class: "heading" }, el("h1", {}, "Health"),
    el("button", { class: "secondary", id: "health-reload", onclick: () => showHealth() }, "Reload"));
  if (!health.ok) { main.replaceChildren(heading, notice(health.body.error, "error")); return; }
  const h = health.body;
  const names = {};
  for (const a of list.ok ? list.body : []) (names[a.id.split("/")[0]] ||= []).push(a.name);
  const servers = h.accessory_servers.map((s) => {
    const server = s.id.replace(/^hap:/, "");
    return el("section", { class: "card server", "data-server": s.id },
      el("div", { class: "name" }, (names[server] || []).join(", ") || s.id, " ",
        el("span", { class: "badge " + (s.connected === false || !s.reachable ? "offline" : "online") },
          s.connected === false ? "disconnected" : s.reachable ? "connected" : "unreachable")),
      el("div", { class: "meta" }, s.id),
      facts([["address", s.address || "—"], ["last event", when(s.last_event)], ["reconnects", s.reconnects],
        ["reads", s.reads], ["writes", s.writes], ["failed writes", s.failed_writes], ["events", s.events],
        ["accessories", s.accessories]]));
  });
  main.replaceChildren(heading,
    el("div", { class: "cards", id: "health" },
      el("section", { class: "card" }, el("h2", {}, "Gateway"),
        facts([["uptime", duration(h.uptime)], ["memory", h.memory.rss === null ? "—" : (h.memory.rss / 1048576).toFixed(1) + " MiB"]])),
      el("section", { class: "card" }, el("h2", {}, "MQTT"),
        facts([["received", h.mqtt.received], ["sent", h.mqtt.sent], ["collapsed", h.mqtt.collapsed],
          ["shed", h.mqtt.shed], ["oversized", h.mqtt.oversized]]))),
    el("h2", { class: "section" }, "Accessory servers"),
    servers.length ? el("div", { class: "cards", id: "servers" }, servers) : el("p", { class: "empty" }, "No accessory server yet."));
}

function facts(pairs) {
  return el("dl", { class: "facts" }, pairs.map(([label, value]) =>
    [el("dt", {}, label), el("dd", { "data-field": label.replace(/ /g, "_") }, String(value))]).flat());
}

function duration(seconds) {
  const d = Math.floor(seconds / 86400), h = Math.floor(seconds % 86400 / 3600), m = Math.floor(seconds % 3600 / 60);
  return [d ? d + " d" : null, d || h ? h + " h" : null, m + " min", d ? null : seconds % 60 + " s"].filter(Boolean).join(" ");
}

// ---- the log ----

async function showLog() {
  state.view = "log";
  const answer = await api("GET", "log");
  if (state.view !== "log") return;
  const box = el("div", { class: "log", id: "log" }, (answer.ok ? answer.body : []).map(logLine));
  main.replaceChildren(el("h1", {}, "Log"), box);
  box.scrollTop = box.scrollHeight;
}

function logLine(line) {
  return el("div", { class: line.level }, line.time.replace("T", " ").replace("Z", ""), " ", line.level, " [", line.label, "] ", line.message);
}

// ---- live updates ----

function listen() {
  const live = document.getElementById("live");
  const source = new EventSource("/api/events");
  source.onopen = () => { live.textContent = "live"; live.className = "live on"; };
  source.onerror = () => { live.textContent = "reconnecting…"; live.className = "live off"; };
  source.addEventListener("value", (event) => {
    const change = JSON.parse(event.data);
    applyValue(change.accessory, change.iid, change.value);
    for (const node of document.querySelectorAll("[data-last-event]")) {
      if (node.getAttribute("data-last-event") === change.accessory) node.textContent = when(new Date().toISOString());
    }
  });
  source.addEventListener("availability", (event) => {
    const change = JSON.parse(event.data);
    if (state.view === "accessories") showList();
    if (state.view === "accessory" && state.accessory && state.accessory.id === change.accessory) route();
  });
  source.addEventListener("accessories", () => { if (state.view === "accessories") showList(); });
  source.addEventListener("discovered", (event) => showDiscovered(JSON.parse(event.data)));
  source.addEventListener("log", (event) => {
    const box = document.getElementById("log");
    if (!box) return;
    const stick = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
    box.append(logLine(JSON.parse(event.data)));
    while (box.children.length > 500) box.firstChild.remove();
    if (stick) box.scrollTop = box.scrollHeight;
  });
}

// ---- routing ----

function route() {
  const hash = location.hash || "#/";
  const [, page, argument] = hash.match(/^#\/([^/]*)\/?(.*)$/) || [];
  for (const link of document.querySelectorAll("nav a")) {
    link.classList.toggle("current", link.getAttribute("data-nav") === (page === "accessory" || !page ? "accessories" : page));
  }
  if (page === "accessory" && argument) return showAccessory(decodeURIComponent(argument));
  if (page === "log") return showLog();
  if (page === "pair") return showPair();
  if (page === "health") return showHealth();
  return showList();
}

window.addEventListener("hashchange", route);
route();
listen();
api("GET", "session").then((answer) => {
  if (answer.ok && answer.body.token_required) document.getElementById("sign-out-form").hidden = false;
});
