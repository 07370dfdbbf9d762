// The one way fogx writes a time for people: the jurisdiction's wall clock with its offset
// (2026-06-30 23:30 -07:00), never UTC; and the way back from a local time typed in a form.

function wallParts(instant, zone) {
  return Object.fromEntries(new Intl.DateTimeFormat("en-US", {
    timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit",
    hour: "2-digit", minute: "2-digit", second: "2-digit",
  }).formatToParts(instant).map((part) => [part.type, part.value]));
}

// Minutes the zone's clock is ahead of UTC at the instant.
function offsetMinutes(instant, zone) {
  const parts = wallParts(instant, zone);
  const wall = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  return Math.round((wall - Math.floor(instant.getTime() / 1000) * 1000) / 60000);
}

const two = (n) => String(n).padStart(2, "0");

function offsetText(minutes) {
  return `${minutes < 0 ? "-" : "+"}${two(Math.floor(Math.abs(minutes) / 60))}:${two(Math.abs(minutes) % 60)}`;
}

// An instant (RFC 3339) as a person reads it.
export function when(value, zone) {
  if (!value) return "";
  const instant = new Date(value);
  const parts = wallParts(instant, zone);
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${offsetText(offsetMinutes(instant, zone))}`;
}

// An instant as a datetime-local field shows it, in the zone (2026-06-30T23:30).
export function toLocalInput(value, zone) {
  if (!value) return "";
  const parts = wallParts(new Date(value), zone);
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

// A datetime-local field's value, read as the zone's wall clock, as RFC 3339 with its offset.
export function fromLocalInput(value, zone) {
  if (!value) return null;
  const [day, clock] = value.split("T");
  const [year, month, date] = day.split("-").map(Number);
  const [hour, minute] = clock.split(":").map(Number);
  const wall = Date.UTC(year, month - 1, date, hour, minute);
  let offset = offsetMinutes(new Date(wall), zone);
  offset = offsetMinutes(new Date(wall - offset * 60000), zone);
  return `${day}T${two(hour)}:${two(minute)}:00${offsetText(offset)}`;
}
