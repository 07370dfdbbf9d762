// A disposal site's clerk: the loads haulers say they brought, each confirmed with the site's
// receipt or disputed with a reason; what the site has said of each stays beside it.
import { getJson, post } from "./api.js";
import { action, el, field, report, show, table } from "./dom.js";
import { fromLocalInput, toLocalInput, when } from "./time.js";

const PAGE = 50;
const STATES = { awaiting: "Awaiting the site", received: "Received", disputed: "Disputed" };

export async function site() {
  const cities = await getJson("/v1/jurisdictions");
  const zone = cities.items[0]?.time_zone || "America/Los_Angeles";
  const panel = el("div", { id: "delivery-action" });
  const results = el("div", { class: "results" });
  const state = el("select", { id: "deliveries-state", name: "state" },
    el("option", { value: "" }, "any"), Object.entries(STATES).map(([v, words]) => el("option", { value: v }, words)));
  const filters = el("form", { class: "filters" }, field("State", state),
    el("div", { class: "field buttons" }, el("button", { type: "submit" }, "Show")));
  const load = async () => {
    const asked = { state: state.value, limit: PAGE };
    const page = await getJson("/v1/deliveries", asked);
    if (!page.items.length) {
      results.replaceChildren(el("p", { class: "empty" }, "No delivery to show."));
      return;
    }
    const { grid, add } = deliveries(page.items, zone, (d) => choose(d, zone, panel, load));
    let cursor = page.next_cursor;
    const more = action("Show more", async () => {
      const next = await getJson("/v1/deliveries", { ...asked, cursor });
      add(next.items);
      cursor = next.next_cursor;
      more.hidden = !cursor;
    }, { class: "quiet" });
    more.hidden = !cursor;
    results.replaceChildren(grid, more);
  };
  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    show("");
    load().catch(report);
  });
  await load();
  return [el("h1", {}, "Deliveries to your site"),
    el("p", { class: "muted" }, "What each hauler's manifest says it brought here. Confirm a load as the site ",
      "received it, or dispute one that did not arrive as filed; the city sees both."),
    panel, el("section", { class: "card", "aria-labelledby": "deliveries-title" },
      el("h2", { id: "deliveries-title" }, "Deliveries"), filters, results)];
}

function deliveries(items, zone, onChoose) {
  return table("Loads haulers say they delivered, the latest delivered first", [
    ["Ticket", (d) => d.ticket_number || "none", null, true],
    ["Delivered", (d) => when(d.delivered_at, zone), "date", true],
    ["State", (d) => el("span", { class: `badge ${d.state}` }, STATES[d.state]), null, true],
    ["Hauler", (d) => `${d.hauler_name} (licence ${d.hauler_licence_number})`],
    ["Truck", (d) => d.vehicle_id],
    ["Hauler says", (d) => (d.gallons_delivered == null ? "" : `${d.gallons_delivered} gal`), "number"],
    ["Site received", (d) => (d.receipt ? `${d.receipt.gallons_received} gal, ${when(d.receipt.received_at, zone)}` : "not yet")],
    ["Disputes", (d) => (d.disputes.length ? el("ul", { class: "findings" }, d.disputes.map((x) =>
      el("li", {}, x.reason, " ", el("span", { class: "muted" }, when(x.created_at, zone))))) : "none")],
    ["Confirm or dispute", (d) => action(`Confirm or dispute ${d.ticket_number || d.manifest_number}`, async () => onChoose(d),
      { class: "quiet", "data-manifest": d.manifest_id })],
  ], items);
}

// The delivery chosen: confirm it (a receipt of its ticket, on its day, of the gallons weighed)
// or dispute it with a reason.
function choose(delivery, zone, panel, reload) {
  const gallons = el("input", { id: "received-gallons", type: "number", min: 0, max: 100000, value: delivery.gallons_delivered ?? "" });
  // When the load came through the gate, as the site's clock read it: the hauler's time unless changed.
  const receivedAt = el("input", { id: "received-at", type: "datetime-local", required: true,
    value: toLocalInput(delivery.delivered_at, zone) });
  const reason = el("textarea", { id: "dispute-reason", rows: 3, maxlength: 2000 });
  const done = async (message) => {
    panel.replaceChildren();
    await reload();
    show(message);
  };
  const confirm = action("Confirm the receipt", async () => {
    await post("/v1/receipts", {
      ticket_number: delivery.ticket_number, hauler_licence_number: delivery.hauler_licence_number,
      vehicle_id: delivery.vehicle_id, waste_type: delivery.waste_type, gallons_received: Number(gallons.value),
      received_at: fromLocalInput(receivedAt.value, zone) || delivery.delivered_at,
    });
    await done(`Ticket ${delivery.ticket_number} is confirmed as received.`);
  }, { id: "confirm-delivery" });
  const dispute = action("Dispute the delivery", async () => {
    if (!reason.value.trim()) throw new Error("Say why the delivery is disputed.");
    await post(`/v1/deliveries/${delivery.manifest_id}/disputes`, { reason: reason.value.trim() });
    await done(`Ticket ${delivery.ticket_number} is disputed; the city sees your reason.`);
  }, { id: "dispute-delivery" });
  const fix = delivery.receipt ? receiptFix(delivery, zone, done) : null;
  panel.replaceChildren(el("section", { class: "card", "aria-labelledby": "chosen-title" },
    el("h2", { id: "chosen-title", tabindex: "-1" }, `Ticket ${delivery.ticket_number} from ${delivery.hauler_name}`),
    el("p", {}, `The manifest ${delivery.manifest_number} says truck ${delivery.vehicle_id} delivered `,
      `${delivery.gallons_delivered} gal on ${when(delivery.delivered_at, zone)}.`),
    el("div", { class: "filters" }, field("Gallons the site received", gallons),
      field("Received at", receivedAt, `Local time (${zone})`), el("div", { class: "field buttons" }, confirm)),
    el("div", { class: "filters" }, field("Why the site disputes it", reason), el("div", { class: "field buttons" }, dispute)),
    fix,
    el("button", { type: "button", class: "quiet", onclick: () => panel.replaceChildren() }, "Close")));
  panel.querySelector("h2").focus();
}

// The site's receipt of the load, made in error, corrected: its first reading stays on record.
function receiptFix(delivery, zone, done) {
  const gallons = el("input", { id: "fix-gallons", type: "number", min: 0, max: 100000, value: delivery.receipt.gallons_received });
  const at = el("input", { id: "fix-received-at", type: "datetime-local", value: toLocalInput(delivery.receipt.received_at, zone) });
  const reason = el("textarea", { id: "fix-receipt-reason", rows: 2, maxlength: 2000 });
  const correct = action("Correct the receipt", async () => {
    if (!reason.value.trim()) throw new Error("Say why the receipt is corrected.");
    const kept = await getJson(`/v1/receipts/${delivery.receipt.id}`);
    await post(`/v1/receipts/${delivery.receipt.id}/corrections`, {
      ticket_number: kept.ticket_number, hauler_licence_number: kept.hauler_licence_number, vehicle_id: kept.vehicle_id,
      waste_type: kept.waste_type, gallons_received: Number(gallons.value), received_at: fromLocalInput(at.value, zone),
      reason: reason.value.trim(),
    });
    await done(`The receipt of ticket ${delivery.ticket_number} is corrected; what it said before is kept.`);
  }, { id: "correct-receipt" });
  return el("section", { "aria-labelledby": "fix-receipt-title" },
    el("h3", { id: "fix-receipt-title" }, "Correct the site's receipt"),
    el("p", { class: "muted" }, `The site recorded ${delivery.receipt.gallons_received} gal at `,
      `${when(delivery.receipt.received_at, zone)}. A correction keeps that reading on record beside the new one.`),
    el("div", { class: "filters" }, field("Gallons received", gallons), field("Received at", at, `Local time (${zone})`),
      field("Why it is corrected", reason), el("div", { class: "field buttons" }, correct)));
}
