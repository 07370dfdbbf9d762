// The day's stops: the hauler's due list, each stop with its device's capacity and design
// depth, its city's rule parameters and time zone, the trucks and disposal sites; read while
// there is a signal and kept on the phone for when there is none.
import { problem } from "../js/api.js";
import { call } from "./session.js";
import { keep, kept } from "./store.js";

export const WITHIN_DAYS = 14;

async function json(path) {
  const response = await call(path);
  if (!response.ok) throw await problem(response);
  return response.json();
}

async function all(path) {
  const items = [];
  let cursor = null;
  do {
    const url = new URL(path, location.origin);
    url.searchParams.set("limit", "200");
    if (cursor) url.searchParams.set("cursor", cursor);
    const page = await json(url.pathname + url.search);
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

export async function loadDay() {
  const [cities, haulers, sites, due] = await Promise.all([
    json("/v1/jurisdictions").then((page) => page.items), all("/v1/haulers"), all("/v1/disposal-sites"),
    all(`/v1/haulers/me/due?within_days=${WITHIN_DAYS}`)]);
  const fses = [...new Set(due.map((stop) => stop.fse_id))];
  const [vehicles, ...devices] = await Promise.all([
    haulers.length ? all(`/v1/haulers/${haulers[0].id}/vehicles`) : [],
    ...fses.map((fse) => all(`/v1/fses/${fse}/devices`))]);
  const byId = Object.fromEntries(devices.flat().map((device) => [device.id, device]));
  const day = {
    loadedAt: new Date().toISOString(),
    cities: Object.fromEntries(cities.map((c) => [c.code, { name: c.name, zone: c.time_zone, parameters: c.parameters, rules: c.rules }])),
    stops: due.filter((stop) => byId[stop.device_id]).map((stop) => ({ ...stop, device: byId[stop.device_id] })),
    vehicles: vehicles.map((v) => ({ jurisdiction: v.jurisdiction, vehicle_id: v.vehicle_id, tank: v.tank_capacity_gallons })),
    sites: sites.map((s) => ({ id: s.id, name: s.name })),
  };
  await keep("day", day);
  return day;
}

export const keptDay = () => kept("day");
