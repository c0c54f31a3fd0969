// hap2mqtt's web page: plain JavaScript, no build step, nothing fetched but this gateway's own API.
// Every action is an API call that runs the same operation as MQTT (a /set, a bridge request); values and
// availability come live over /api/events (Server-Sent Events). The DOM is built with textContent only,
// so no name or value from an accessory is ever read as HTML.
"use strict";

const main = document.getElementById("main");
const state = { accessory: null, view: null };

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
  main.replaceChildren(el("h1", {}, "Accessories"));
  if (!answer.ok) { main.append(notice(answer.body.error, "error")); return; }
  if (answer.body.length === 0) {
    main.append(el("p", { class: "empty" }, "No accessories yet."));
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
    } }, name, el("button", { type: "submit", class: "secondary" }, "Rename")));
}

async function bridge(command, request, success) {
  const outcome = document.getElementById("outcome");
  const answer = await api("POST", "bridge/request/" + command, request);
  if (outcome) outcome.replaceChildren(notice(answer.ok ? success : answer.body.error, answer.ok ? "ok" : "error"));
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
  return showList();
}

window.addEventListener("hashchange", route);
route();
listen();
