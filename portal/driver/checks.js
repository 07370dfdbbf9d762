// The checks the exchange will make of a filing that the phone can make before it (the rules
// of domain/checks.py, on the city's parameters as /v1/jurisdictions gives them): the truck's
// capacity, the 25% rule, the outlet clearance where the city sets one, the full pump-down and
// returned decant. Depths and gallons are compared in thousandths, exactly, so a value at a
// limit is at it. Each check: {key, state: ok | flag | pending, words: [key, values], citation}.
const milli = (value) => Math.round(Number(value) * 1000);
const decimal = (thousandths) => String(Number((thousandths / 1000).toFixed(3)));

export function number(value) {
  return value === "" || value === null || value === undefined || Number.isNaN(Number(value)) ? null : Number(value);
}

export function citationOf(city, rule) {
  return city.rules.find((row) => row.rule === rule)?.citation || "exchange policy";
}

function capacity({ city, vehicles, values }) {
  const check = { key: "check.capacity", citation: citationOf(city, "vehicle_registered") };
  const gallons = number(values.gallons);
  const truck = vehicles.find((v) => v.vehicle_id === values.vehicle);
  if (!truck) return { ...check, state: "flag", words: ["capacityUnknown", { truck: values.vehicle }] };
  if (gallons === null) return { ...check, state: "pending" };
  const words = { gallons, truck: truck.vehicle_id, tank: truck.tank };
  return gallons > truck.tank ? { ...check, state: "flag", words: ["capacityOver", words] }
    : { ...check, state: "ok", words: ["capacityOk", words] };
}

function twentyFive({ city, device, values }) {
  if (!device || device.kind !== "interceptor") return null;
  const check = { key: "check.twentyFive", citation: citationOf(city, "twenty_five_percent_rule") };
  const [fog, solids] = [number(values.fog), number(values.solids)];
  if (fog === null || solids === null) return { ...check, state: "pending" };
  const sum = milli(fog) + milli(solids);
  const ratio = milli(city.parameters.twenty_five_percent_rule);
  const depth = milli(device.liquid_depth_in);
  const words = { sum: decimal(sum), share: decimal(ratio * 100), depth: decimal(depth), limit: decimal((ratio * depth) / 1000) };
  return sum * 1000 > ratio * depth ? { ...check, state: "flag", words: ["twentyFiveOver", words] }
    : { ...check, state: "ok", words: ["twentyFiveOk", words] };
}

function clearance({ city, device, values }) {
  const limit = city.parameters.min_outlet_clearance_in;
  if (limit === null || limit === undefined || !device || device.kind !== "interceptor") return null;
  const check = { key: "check.clearance", citation: citationOf(city, "min_outlet_clearance_in") };
  const value = number(values.clearance);
  if (value === null) return { ...check, state: "pending" };
  const words = { value: decimal(milli(value)), limit: decimal(milli(limit)) };
  return milli(value) <= milli(limit) ? { ...check, state: "flag", words: ["clearanceNear", words] }
    : { ...check, state: "ok", words: ["clearanceOk", words] };
}

function fullPumpDown({ city, device, values }) {
  const ratio = milli(city.parameters.full_pump_min_ratio);
  if (!values.full) {
    const rule = (device?.kind || values.kind) === "interceptor" ? "full_pump_down" : "trap_full_pump_down";
    return { key: "check.full", citation: citationOf(city, rule), state: "flag", words: ["fullNotAttested", {}] };
  }
  const check = { key: "check.full", citation: citationOf(city, "full_pump_min_ratio") };
  if (!device) return { ...check, state: "pending", words: ["deviceUnknown", {}] };
  const gallons = number(values.gallons);
  if (gallons === null) return { ...check, state: "pending" };
  const words = { gallons, share: decimal(ratio * 100), capacity: device.capacity_gallons };
  return gallons * 1000 < ratio * device.capacity_gallons ? { ...check, state: "flag", words: ["fullShort", words] }
    : { ...check, state: "ok", words: ["fullOk", words] };
}

function decant({ city, values }) {
  const check = { key: "check.decant", citation: citationOf(city, "decant_return_allowed") };
  const gallons = number(values.decant) || 0;
  return gallons > 0 && !city.parameters.decant_return_allowed
    ? { ...check, state: "flag", words: ["decantReturned", { gallons }] } : { ...check, state: "ok", words: ["decantOk", {}] };
}

// device: the stop's device (null for another stop the phone does not know); city: its city's parameters and rules; vehicles: the
// trucks registered in that city; values: the form's values.
export function preflight({ city, device, vehicles, values }) {
  const facts = { city, device, vehicles, values };
  return [capacity(facts), twentyFive(facts), clearance(facts), fullPumpDown(facts), decant(facts)].filter(Boolean);
}

const MAX_SERVICE_MS = 48 * 3600_000; // schemas/manifest.py MAX_SERVICE
const whole = (value) => value === "" || Number.isInteger(Number(value));

// What the exchange would refuse of the form's values, told beside each field before filing:
// [control key, words key, values]. started and completed are instants (ms); values are the
// form's as typed. The manifest's schema takes gallons as integers, and a disposal record
// whole (its site, ticket, delivery time and gallons).
export function fieldProblems({ values, started, completed, completedWords }) {
  const found = [];
  if (started !== null && started > completed) found.push(["started", completedWords ? "startedAfter" : "startedFuture", { when: completedWords }]);
  else if (started !== null && completed - started > MAX_SERVICE_MS) found.push(["started", "tooLong", {}]);
  for (const key of ["gallons", "decant", "delivered-gallons"]) {
    if (!whole(values[key])) found.push([key, "wholeGallons", {}]);
  }
  if (values.site) {
    if (values.ticket === "") found.push(["ticket", "needTicket", {}]);
    if (values.delivered === "") found.push(["delivered", "needDelivered", {}]);
    if (values["delivered-gallons"] === "") found.push(["delivered-gallons", "needDeliveredGallons", {}]);
  }
  return found;
}

// What the restaurant's person attests by signing, of a manifest body: the service's start,
// the gallons, the depths, the full pump-down and who signed. The words key of each.
const ATTESTED = {
  "form.started": (m) => new Date(m.service_started_at).getTime(),
  "form.gallons": (m) => m.gallons_removed,
  "form.decant": (m) => m.decant_returned_gallons,
  "form.full": (m) => m.full_pump_down,
  "form.fog": (m) => m.measurements?.fog_depth_in ?? null,
  "form.solids": (m) => m.measurements?.solids_depth_in ?? null,
  "form.liquid": (m) => m.measurements?.liquid_depth_in ?? null,
  clearance: (m) => m.measurements?.outlet_clearance_in ?? null,
  "form.signer": (m) => m.fse_signer_name,
};

// The attested values `now` changes from the manifest the restaurant signed: their words keys.
export function attestedChanges(signed, now) {
  return Object.entries(ATTESTED).filter(([, of]) => of(signed) !== of(now)).map(([key]) => key);
}
