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

// ---- words from the HAP catalogue (/api/catalog): labels, value names, unit symbols ----

const catalog = { services: {}, characteristics: {}, units: {} };

function serviceLabel(service) {
  return catalog.services[service.type] || service.name || service.type;
}

function characteristicLabel(c) {
  const entry = catalog.characteristics[c.type];
  return (entry && entry.label) || c.name || c.slug;
}

function unitSymbol(unit) {
  return catalog.units[unit] || unit;
}

// A value as people read it: the catalogue's word for an enumerated value, a number with its unit, "—"
// for none or an empty string (published as "" so that the retained topic stays).
function display(c, value) {
  if (value === null || value === undefined || value === '""') return "—";
  const entry = catalog.characteristics[c.type];
  const key = c.format === "bool" ? (value === "true" ? "1" : "0") : value;
  if (entry && entry.values && entry.values[key] !== undefined) return entry.values[key];
  if (c.valid_values) {
    const name = Object.entries(c.valid_values).find(([, v]) => String(v) === value);
    if (name) return name[0];
  }
  if (c.format === "bool") return value === "true" ? "Yes" : "No";
  if (numeric.has(c.format)) {
    const number = Number(value);
    const shown = Number.isInteger(number) ? String(number) : String(Math.round(number * 10) / 10);
    return c.unit ? shown + " " + unitSymbol(c.unit) : shown;
  }
  return value;
}

// ---- the dashboard: every accessory by room, its state in words and the one control it needs ----

const numeric = new Set(["uint8", "uint16", "uint32", "uint64", "int", "float"]);
// Accessory Information, HAP protocol information and service labels: folded away on the accessory's page.
const hiddenServices = new Set(["3E", "A2", "CC"]);

async function showList() {
  state.view = "accessories";
  const [answer, excluded] = await Promise.all([api("GET", "accessories"), api("GET", "excluded")]);
  if (state.view !== "accessories") return;
  const carried = state.notice && state.notice.until > Date.now() ? state.notice : null;
  main.replaceChildren(
    el("div", { class: "heading" }, el("h1", {}, "Home"),
      el("button", { class: "secondary", id: "refresh-all", onclick: () => refresh(null) }, "Refresh all")),
    el("div", { id: "outcome" }, carried ? notice(carried.text, carried.kind) : null));
  if (!answer.ok) { main.append(notice(answer.body.error, "error")); return; }
  state.list = answer.body;
  if (answer.body.length === 0) {
    main.append(el("p", { class: "empty" }, "No accessories yet. ", el("a", { href: "#/pair" }, "Pair one.")));
  } else {
    const unavailable = answer.body.filter((a) => !a.reachable);
    if (unavailable.length) {
      main.append(el("section", { class: "unavailable-list", id: "unavailable" },
        el("h2", {}, "Unavailable"),
        el("ul", {}, unavailable.map((a) => el("li", { "data-id": a.id },
          el("a", { href: "#/accessory/" + encodeURIComponent(a.slug) }, a.name), ": ", a.reason || "unreachable",
          a.last_event ? " (last heard " + when(a.last_event) + ")" : "")))));
    }
    const rooms = new Map();
    for (const accessory of answer.body) {
      const room = accessory.room || "";
      if (!rooms.has(room)) rooms.set(room, []);
      rooms.get(room).push(accessory);
    }
    const names = [...rooms.keys()].sort((a, b) => (a === "") - (b === "") || a.localeCompare(b));
    main.append(el("div", { id: "accessories" }, names.map((room) =>
      el("section", { class: "room", "data-room": room },
        el("h2", {}, room || "No room"),
        el("div", { class: "tiles" }, rooms.get(room).map(tile))))));
  }
  const hidden = excluded.ok ? excluded.body : [];
  if (hidden.length) {
    main.append(el("section", { class: "excluded-list", id: "excluded" },
      el("h2", {}, "Excluded"),
      el("p", { class: "meta" }, "Not on MQTT and not on the dashboard, by their options."),
      el("ul", {}, hidden.map((a) => el("li", { "data-id": a.id }, a.name, " ",
        el("button", { class: "secondary", onclick: async () => {
          const done = await bridge("options", { accessory: a.id, options: { exclude: false } }, null);
          if (done) { state.notice = { text: "Included " + a.name + " again.", kind: "ok", until: Date.now() + 8000 }; showList(); }
        } }, "Include again"))))));
  }
}

// One accessory on the dashboard: its name (a link to its page), its state in words, flags such as a low
// battery, and the one control it needs.
function tile(accessory) {
  const summary = summarize(accessory);
  return el("article", { class: "tile accessory" + (accessory.reachable ? "" : " unavailable"), "data-slug": accessory.slug, "data-id": accessory.id },
    el("a", { class: "tile-name", href: "#/accessory/" + encodeURIComponent(accessory.slug) }, accessory.name),
    el("div", { class: "state", "data-state": accessory.id }, accessory.reachable ? summary.text : "Unavailable: " + (accessory.reason || "unreachable")),
    summary.flags.length ? el("div", { class: "flags" }, summary.flags.map((f) => el("span", { class: "badge offline" }, f))) : null,
    accessory.reachable && summary.control ? el("div", { class: "tile-control" }, summary.control) : null,
    el("div", { class: "result", "data-tile-result": accessory.id }));
}

// The state in words and the control, by the services the accessory has (HAP short types: 43 Lightbulb,
// 49 Switch, 47 Outlet, 40/B7 Fan, 4A Thermostat, 8A/82 temperature and humidity sensors, 45 Lock, 8C
// Window covering, 41 Garage door, 80 Contact, 85 Motion, and the sensors that report one state).
function summarize(accessory) {
  const services = accessory.services.filter((s) => !hiddenServices.has(s.type));
  const types = new Set(services.map((s) => s.type));
  const value = (c) => (c ? accessory.values[String(c.iid)] : undefined);
  const find = (type, ...chars) => {
    for (const service of services) {
      if (type && service.type !== type) continue;
      for (const t of chars) {
        const c = service.characteristics.find((x) => x.type === t);
        if (c) return c;
      }
    }
    return null;
  };
  const shown = (c) => display(c, value(c));
  const set = (c, payload) => writeFromTile(accessory, c, payload);
  const parts = [];
  const flags = [];
  let control = null;
  for (const type of ["43", "49", "47", "40", "B7"]) {
    if (!types.has(type)) continue;
    const on = find(type, "25", "B0");
    const level = find(type, "8", "29");
    const isOn = value(on) === "true" || value(on) === "1";
    parts.push(isOn ? "On" + (level && value(level) !== null ? " · " + shown(level) : "") : "Off");
    if (on && !control) control = toggle(on, isOn, (v) => set(on, on.type === "B0" ? (v ? 1 : 0) : v));
  }
  if (types.has("4A")) {
    const current = find("4A", "11"), target = find("4A", "35"), mode = find("4A", "F"), humidity = find("4A", "10");
    parts.push([current ? shown(current) : null, humidity ? shown(humidity) : null].filter(Boolean).join(" · "));
    const to = target ? " to " + shown(target) : "";
    const now = value(mode);
    parts.push(now === "1" ? "Heating" + to : now === "2" ? "Cooling" + to
      : value(find("4A", "33")) === "0" ? "Off" : "Idle" + (target ? ", target " + shown(target) : ""));
    if (target && !control) control = stepper(target, Number(value(target)), (v) => set(target, v));
  }
  if (!types.has("4A")) {
    const sensed = [find("8A", "11"), find("82", "10")].filter(Boolean);
    if (sensed.length) parts.push(sensed.map(shown).join(" · "));
  }
  if (types.has("45")) {
    const current = find("45", "1D"), target = find("45", "1E");
    parts.push(shown(current));
    if (target && !control) {
      const locked = value(current) === "1";
      control = el("button", { class: "secondary", "data-control": "lock", onclick: () => set(target, locked ? 0 : 1) }, locked ? "Unlock" : "Lock");
    }
  }
  if (types.has("8C")) {
    const current = find("8C", "6D"), target = find("8C", "7C"), moving = find("8C", "72");
    const position = Number(value(current));
    parts.push(position === 0 ? "Closed" : position === 100 ? "Open" : "Open " + position + " %");
    if (moving && value(moving) !== null && value(moving) !== "2") parts.push(shown(moving));
    if (target && !control) control = slider(target, Number(value(target)), (v) => set(target, v));
  }
  if (types.has("41")) {
    const current = find("41", "E"), target = find("41", "32");
    parts.push(shown(current));
    if (target && !control) {
      const closed = value(current) === "1";
      control = el("button", { class: "secondary", "data-control": "door", onclick: () => set(target, closed ? 0 : 1) }, closed ? "Open" : "Close");
    }
  }
  const contact = find("80", "6A");
  if (contact) parts.push("Contact " + shown(contact).toLowerCase());
  const motion = find("85", "22");
  if (motion) parts.push(value(motion) === "true" ? "Motion" : "No motion");
  for (const [type, c] of [["86", "71"], ["83", "70"], ["87", "76"], ["7F", "69"], ["97", "92"]]) {
    const sensed = find(type, c);
    if (sensed) parts.push(characteristicLabel(sensed) + ": " + shown(sensed));
  }
  const low = find(null, "79");
  if (low && value(low) === "1") {
    const level = find(null, "68");
    flags.push("battery low" + (level && value(level) !== null ? " (" + shown(level) + ")" : ""));
  }
  const fault = find(null, "77");
  if (fault && value(fault) === "1") flags.push("fault");
  if (parts.length === 0) {
    const first = services.flatMap((s) => s.characteristics)
      .find((c) => c.perms.includes("pr") && c.type !== "23" && value(c) !== undefined);
    if (first) parts.push(characteristicLabel(first) + ": " + shown(first));
  }
  return { text: parts.filter(Boolean).join(" · ") || "—", control, flags };
}

function toggle(c, on, write) {
  const box = el("input", { type: "checkbox", class: "switch", role: "switch", "aria-label": characteristicLabel(c), "data-control": "toggle" });
  box.checked = on;
  box.addEventListener("change", () => write(box.checked));
  return box;
}

function slider(c, current, write) {
  const range = el("input", { type: "range", min: c.min ?? 0, max: c.max ?? 100, step: c.step ?? 1, "aria-label": characteristicLabel(c), "data-control": "slider" });
  range.value = Number.isFinite(current) ? current : c.min ?? 0;
  range.addEventListener("change", () => write(Number(range.value)));
  return range;
}

function stepper(c, current, write) {
  const step = Math.max(Number(c.step) || 0.5, 0.5);
  const start = Number.isFinite(current) ? current : 20;
  const change = (by) => write(Math.min(c.max ?? 38, Math.max(c.min ?? 10, Math.round((start + by) * 10) / 10)));
  return el("span", { class: "stepper", "data-control": "target" },
    el("button", { class: "secondary", "aria-label": "lower " + characteristicLabel(c), onclick: () => change(-step) }, "−"),
    el("span", { class: "value" }, display(c, Number.isFinite(current) ? String(current) : null)),
    el("button", { class: "secondary", "aria-label": "raise " + characteristicLabel(c), onclick: () => change(step) }, "+"));
}

function tileNode(id, selector) {
  return [...document.querySelectorAll(selector)].find((n) => n.getAttribute(selector.slice(1, -1)) === id);
}

// A write from a tile: the same write a /set makes; the tile shows the confirmed value, or the error.
async function writeFromTile(accessory, c, payload) {
  const pending = tileNode(accessory.id, "[data-tile-result]");
  if (pending) { pending.className = "result"; pending.textContent = "…"; }
  const answer = await api("POST", "accessories/" + encodeURIComponent(accessory.slug) + "/characteristics/" + c.iid, { value: payload });
  if (answer.ok) accessory.values[String(c.iid)] = answer.body.value;
  redrawTile(accessory);
  const result = tileNode(accessory.id, "[data-tile-result]");
  if (result && !answer.ok) { result.className = "result error"; result.textContent = answer.body.error; }
}

function redrawTile(accessory) {
  const old = tileNode(accessory.id, "[data-id]");
  if (!old || state.view !== "accessories") return;
  // A slider being dragged keeps its place; the next value redraws it.
  if (old.contains(document.activeElement) && document.activeElement.type === "range") return;
  old.replaceWith(tile(accessory));
}

// ---- one accessory ----

async function showAccessory(slug) {
  state.view = "accessory";
  const answer = await api("GET", "accessories/" + encodeURIComponent(slug));
  if (state.view !== "accessory") return;
  if (!answer.ok) { main.replaceChildren(el("h1", {}, slug), notice(answer.body.error, "error")); return; }
  const accessory = answer.body;
  state.accessory = accessory;
  const carried = state.notice && state.notice.until > Date.now() ? state.notice : null;
  const reason = accessory.reachable ? null : el("div", { class: "meta reason", id: "reason", "data-offline-reason": accessory.offline_reason || "unknown" },
    accessory.reason || "unreachable", " (", accessory.offline_reason || "unknown", ")");
  const services = accessory.services.filter((s) => !hiddenServices.has(s.type));
  const information = accessory.services.filter((s) => hiddenServices.has(s.type));
  main.replaceChildren(...[
    el("h1", {}, accessory.name, " ", availability(accessory)),
    reason,
    el("p", { class: "meta" }, [accessory.room, accessory.manufacturer, accessory.model].filter(Boolean).join(" · ")),
    el("div", { id: "outcome" }, carried ? notice(carried.text, carried.kind) : null),
    services.map((service) => serviceCard(accessory, service)),
    actions(accessory),
    optionsForm(accessory),
    el("details", { class: "service information", id: "information" },
      el("summary", {}, "Accessory information"),
      information.map((service) => service.characteristics.filter((c) => c.type !== "14")
        .map((c) => characteristicRow(accessory, service, c))),
      topicForm(accessory)),
  ].flat().filter(Boolean));
}

function actions(accessory) {
  return el("div", { class: "actions" },
    el("button", { class: "secondary", id: "identify", onclick: () => bridge("identify", { accessory: accessory.slug }, "Identify sent.") }, "Identify"),
    el("button", { class: "secondary", id: "refresh", onclick: () => refresh(accessory.slug) }, "Refresh"),
    el("button", { class: "danger", id: "unpair", onclick: () => confirmUnpair(accessory) }, "Unpair…"));
}

// Display name, room and exclusion: bridge/request/options, the operation MQTT uses. An emptied field
// removes the option (the accessory's own name, no room); only what changed is sent.
function optionsForm(accessory) {
  const options = accessory.options || {};
  const name = el("input", { id: "option-name", name: "name", maxlength: 64, value: options.name || "", placeholder: accessory.name });
  const room = el("input", { id: "option-room", name: "room", maxlength: 64, value: options.room || "", placeholder: accessory.room || "no room" });
  const exclude = el("input", { type: "checkbox", id: "option-exclude" });
  exclude.checked = options.exclude === true;
  return el("form", { class: "service options", id: "options", onsubmit: async (event) => {
    event.preventDefault();
    const change = {};
    if (name.value.trim() !== (options.name || "")) change.name = name.value.trim() || null;
    if (room.value.trim() !== (options.room || "")) change.room = room.value.trim() || null;
    if (exclude.checked !== (options.exclude === true)) change.exclude = exclude.checked;
    if (Object.keys(change).length === 0) { document.getElementById("outcome").replaceChildren(notice("Nothing changed.", "ok")); return; }
    const done = await bridge("options", { accessory: accessory.id, options: change }, null);
    if (!done) return;
    if (change.exclude === true) {
      state.notice = { text: "Excluded " + accessory.name + ": it is off MQTT and listed under Excluded.", kind: "ok", until: Date.now() + 8000 };
      location.hash = "#/";
      return;
    }
    state.notice = { text: "Saved.", kind: "ok", until: Date.now() + 8000 };
    const target = "#/accessory/" + encodeURIComponent(done.accessory);
    if (location.hash === target) showAccessory(done.accessory); else location.hash = target;
  } },
  el("h2", {}, "Options"),
  el("div", { class: "fields" }, el("label", {}, "Display name", name), el("label", {}, "Room", room)),
  el("label", { class: "check" }, exclude, " Exclude: no topics, not on the dashboard"),
  el("div", { class: "buttons" }, el("button", { type: "submit", id: "options-save" }, "Save")));
}

// The topic's name (bridge/request/rename): lower-case letters, digits and _.
function topicForm(accessory) {
  const name = el("input", { name: "to", value: accessory.slug, "aria-label": "topic name", size: 16, maxlength: 64, id: "rename-to" });
  return el("form", { id: "rename", class: "actions", onsubmit: async (event) => {
    event.preventDefault();
    const done = await bridge("rename", { accessory: accessory.slug, to: name.value }, "Renamed.");
    if (done) location.hash = "#/accessory/" + encodeURIComponent(done.accessory);
  } }, el("span", { class: "meta" }, "Topic ", el("code", {}, accessory.topic)), name,
  el("button", { type: "submit", class: "secondary" }, "Rename topic"));
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
        state.notice = { text: "Unpaired " + done.name + (how[done.outcome] || "") + ".", kind: "ok", until: Date.now() + 8000 };
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
    el("h2", {}, serviceLabel(service)),
    service.characteristics.filter((c) => c.type !== "14").map((c) => characteristicRow(accessory, service, c)));
}

function characteristicRow(accessory, service, c) {
  const value = accessory.values[String(c.iid)];
  const writable = c.perms.includes("pw");
  const key = service.slug + "/" + c.slug;
  const result = el("div", { class: "result", "data-result": key });
  const row = el("div", { class: "row", id: "c-" + c.iid, "data-characteristic": key, "data-iid": c.iid },
    el("div", { class: "label" }, characteristicLabel(c), c.unit ? el("small", {}, unitSymbol(c.unit)) : null),
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
    const box = el("input", { type: "checkbox", class: "switch", role: "switch", "aria-label": characteristicLabel(c) });
    box.checked = value === "true";
    box.addEventListener("change", () => write(box.checked));
    box.setValue = (v) => { box.checked = v === "true"; };
    return [box];
  }
  if (c.valid_values && Object.keys(c.valid_values).length > 0) {
    const select = el("select", { "aria-label": characteristicLabel(c) },
      Object.entries(c.valid_values).sort((a, b) => a[1] - b[1]).map(([, v]) => el("option", { value: v }, display(c, String(v)))));
    select.value = value;
    select.addEventListener("change", () => write(Number(select.value)));
    select.setValue = (v) => { select.value = v; };
    return [select];
  }
  if (numeric.has(c.format)) {
    const number = el("input", { type: "number", step: c.step ?? "any", "aria-label": characteristicLabel(c) + " value" });
    number.value = value ?? "";
    number.addEventListener("change", () => { if (number.value !== "") write(Number(number.value)); });
    if (c.min !== undefined && c.max !== undefined && c.min !== null && c.max !== null) {
      const slider = el("input", { type: "range", min: c.min, max: c.max, step: c.step ?? "any", "aria-label": characteristicLabel(c) });
      slider.value = value ?? c.min;
      slider.addEventListener("input", () => { number.value = slider.value; });
      slider.addEventListener("change", () => write(Number(slider.value)));
      slider.setValue = (v) => { if (document.activeElement !== slider) slider.value = v; if (document.activeElement !== number) number.value = v; };
      return [slider, number];
    }
    number.setValue = (v) => { if (document.activeElement !== number) number.value = v; };
    return [number];
  }
  const text = el("input", { type: "text", "aria-label": characteristicLabel(c), maxlength: c.max_length ?? null });
  text.value = value ?? "";
  const button = el("button", { type: "button", class: "secondary", onclick: () => write(text.value) }, "Set");
  text.setValue = (v) => { if (document.activeElement !== text) text.value = v ?? ""; };
  return [text, button];
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
  // What the gateway learned of a misbehaving accessory server (docs/DESIGN.md "Availability and recovery").
  const learned = (p) => !p ? [] : [
    ["polled instead of events", p.polled_instead_of_events.length ? p.polled_instead_of_events.join(", ") : "—"],
    ["read batch", p.read_batch_limit === null ? "—" : "at most " + p.read_batch_limit],
    ["idle limit", p.idle_limit === null ? "—" : p.idle_limit + " s"], ["keep-alive", p.keepalive + " s"]];
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
        ["accessories", s.accessories], ["offline reason", s.offline_reason || "—"]].concat(learned(s.profile))));
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

// ---- scenes and groups: bridge/request/scene_list, group_list, scene_recall, group_set ----

// `message`: the outcome of the last recall or group command, shown above the lists drawn again.
async function showScenes(message) {
  state.view = "scenes";
  const [scenes, groups] = await Promise.all([
    api("POST", "bridge/request/scene_list", {}), api("POST", "bridge/request/group_list", {})]);
  if (state.view !== "scenes") return;
  const status = el("div", { id: "scenes-status" }, message || null);
  const sceneCards = (scenes.ok ? scenes.body.data : []).map((scene) =>
    el("section", { class: "card", "data-scene": scene.slug },
      el("div", { class: "name" }, scene.name),
      el("div", { class: "meta" }, scene.values + " values: " + scene.accessories.join(", ")),
      el("button", { "data-recall": scene.slug, onclick: () => recallScene(scene.slug) }, "Recall")));
  const groupCards = (groups.ok ? groups.body.data : []).map((group) =>
    el("section", { class: "card", "data-group": group.slug },
      el("div", { class: "name" }, group.name, " ", el("span", { class: "badge", "data-group-state": group.slug }, groupStateText(group.state))),
      el("div", { class: "meta" }, group.kind + ": " + group.members.join(", ")),
      groupControls(group)));
  main.replaceChildren(
    el("h1", {}, "Scenes"), status,
    sceneCards.length ? el("div", { class: "cards", id: "scenes" }, sceneCards)
      : el("p", { class: "empty" }, "No scene yet: store one with bridge/request/scene_store."),
    el("h2", { class: "section" }, "Groups"),
    groupCards.length ? el("div", { class: "cards", id: "groups" }, groupCards)
      : el("p", { class: "empty" }, "No group yet: add one with bridge/request/group_add."));
}

function groupStateText(s) {
  if (!s || s.state === null) return "unknown";
  const parts = [s.state.toLowerCase()];
  if (s.brightness !== undefined) parts.push(s.brightness + " %");
  if (s.position !== undefined && s.position !== null) parts.push(s.position + " %");
  return parts.join(", ");
}

function groupControls(group) {
  const set = (command) => setGroup(group.slug, command);
  if (group.kind === "cover") {
    return el("div", { class: "actions" },
      el("button", { "data-group-command": "open", onclick: () => set({ state: "OPEN" }) }, "Open"),
      el("button", { "data-group-command": "close", class: "secondary", onclick: () => set({ state: "CLOSE" }) }, "Close"));
  }
  return el("div", { class: "actions" },
    el("button", { "data-group-command": "on", onclick: () => set({ state: "ON" }) }, "On"),
    el("button", { "data-group-command": "off", class: "secondary", onclick: () => set({ state: "OFF" }) }, "Off"));
}

// One answer for the whole recall: every failed write and every missing accessory is listed.
async function recallScene(slug) {
  const answer = await api("POST", "bridge/request/scene_recall", { scene: slug });
  if (state.view === "scenes") showScenes(answer.ok ? notice("Recalled " + slug + ".", "ok") : notice(answer.body.error, "error"));
}

async function setGroup(slug, command) {
  const answer = await api("POST", "bridge/request/group_set", Object.assign({ group: slug }, command));
  if (state.view === "scenes") showScenes(answer.ok ? notice("Done.", "ok") : notice(answer.body.error, "error"));
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
    const listed = state.view === "accessories" && state.list && state.list.find((a) => a.id === change.accessory);
    if (listed) { listed.values[String(change.iid)] = change.value; redrawTile(listed); }
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
  if (page === "scenes") return showScenes();
  return showList();
}

window.addEventListener("hashchange", route);
api("GET", "catalog").then((answer) => {
  if (answer.ok) Object.assign(catalog, answer.body);
  route();
  listen();
});
api("GET", "session").then((answer) => {
  if (answer.ok && answer.body.token_required) document.getElementById("sign-out-form").hidden = false;
});
