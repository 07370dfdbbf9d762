// The words of the restaurant's and the driver's views, in English and Spanish; the language
// chosen is kept in this browser. A finding's code is never shown: its words are.
const KEPT = "fogx.portal.language";

const WORDS = {
  en: {
    "status.compliant": "Up to date", "status.due_soon": "Due soon", "status.overdue": "Overdue",
    "status.missed": "Missed", "status.never_serviced": "Never serviced", "status.permit_ended": "Permit ended", "status.retired": "Retired",
    "role.auditor": "city auditor", "role.hauler": "hauler", "role.fse": "restaurant operator", "role.site": "disposal site",
    loading: "Loading…", none: "none", yes: "yes", no: "no", any: "any", show: "Show", showMore: "Show more",
    downloadCsv: "Download CSV",
    "fse.title.one": "Your restaurant", "fse.title.many": "Your restaurants",
    "fse.none": "No restaurant is linked to this client yet.",
    "fse.devicesOn": "Grease control devices on {day}", "fse.noDevice": "No grease control device on record.",
    "fse.device": "Device", "fse.permit": "Permit", "fse.every": "Pumped every", "fse.lastService": "Last full service",
    "fse.nextDue": "Next due", "fse.status": "Status", "fse.days": "{n} days",
    "fse.binder": "Binder (PDF)", "fse.zip": "Records with scans (ZIP)", "fse.csv": "Services (CSV)",
    "fse.openRecord": "Services, findings and measurements",
    "fse.servicesFrom": "Services from {from} to {to}", "fse.completed": "Completed", "fse.manifest": "Manifest",
    "fse.revision": "revision {n}", "fse.gallons": "Gallons removed", "fse.received": "Site received",
    "fse.full": "Full pump-down", "fse.findings": "Findings", "fse.scans": "Scans",
    "fse.summary": "{n} services in the period, {full} of them full; {share}% filed on time.",
    "fse.noServices": "No services in the period.",
    "fse.permitLine": "Permit {number}: {status}", "fse.expires": ", expires {day}",
    "fse.findingsTitle": "Findings and the rule behind each", "fse.noFindings": "No open findings. Well done.",
    "fse.rule": "Rule: {citation}",
    "log.title": "Your kitchen's grease trap cleaning log", "log.missingDay": "{device}: no cleaning logged on {day}",
    "log.noneMissing": "Every day of the period has its cleaning logged.",
    "log.noRule": "Your city sets no daily cleaning; the log is your record of it.",
    "log.entries": "Cleanings from {from} to {to}", "log.day": "Day", "log.by": "Cleaned by", "log.note": "Note",
    "log.noEntries": "No cleaning logged in the period.", "log.recordTitle": "Log a cleaning",
    "log.record": "Log the cleaning", "log.recorded": "Logged: {device} cleaned on {day}.",
    "measure.none": "not enough services measured", "measure.shorten": "pump more often",
    "measure.lengthen": "could be pumped less often", "measure.keep": "frequency is right",
    "measure.line": "{change}: every {days} days (now {now}; {n} intervals measured)",
    "hauler.title": "Your customers' devices", "hauler.due": "Devices coming due", "hauler.within": "Within days",
    "hauler.restaurant": "Restaurant", "hauler.address": "Address", "hauler.due.caption": "Due within {n} days, or past due",
    "hauler.dueOn": "Due", "hauler.dueEmpty": "Nothing you service comes due in that time.",
    "hauler.file": "File a manifest", "hauler.recent": "Your manifests of the last 90 days", "hauler.correct": "Correct",
    "hauler.noManifests": "You have filed no manifest yet.",
    "form.service": "The service", "form.number": "Manifest number", "form.permit": "Permit number", "form.device": "Device tag",
    "form.vehicle": "Truck", "form.driver": "Driver", "form.started": "Service started", "form.completed": "Service completed",
    "form.localTime": "Local time ({zone})", "form.waste": "Waste", "form.gallons": "Gallons removed",
    "form.decant": "Gallons decanted back", "form.full": "Pumped out completely", "form.fog": "FOG depth (in)",
    "form.solids": "Solids depth (in)", "form.liquid": "Liquid depth (in)", "form.signer": "Signed for the restaurant by",
    "form.site": "Disposal site", "form.noSite": "not delivered yet", "form.ticket": "Disposal ticket",
    "form.delivered": "Delivered", "form.deliveredGallons": "Gallons delivered", "form.scan": "Scan of the signed manifest",
    "form.reason": "Why it is corrected", "form.submit": "File the manifest", "form.submitCorrection": "File the correction",
    "form.cancel": "Cancel", "form.correcting": "Correcting manifest {number}",
    "waste.grease_interceptor_waste": "Grease interceptor waste", "waste.grease_trap_waste": "Grease trap waste",
    "answer.filed": "Manifest {number} is filed (revision {revision}).", "answer.pending":
      "The correction waits for the city's review: it moves the manifest ({moves}).",
    "answer.clean": "No findings: the service complies.", "answer.findings": "Findings",
    "answer.qualifying": "It counts as a full service; next due {day}.",
    "answer.notQualifying": "It does not count as a full service.",
    "permit.active": "active", "permit.suspended": "suspended", "permit.revoked": "revoked", "permit.expired": "expired",
    "permit.not_issued": "not issued", "kind.interceptor": "interceptor", "kind.trap": "trap",
    language: "Language", signOut: "Sign out", secondFactor: "Second factor",
  },
  es: {
    "status.compliant": "Al día", "status.due_soon": "Vence pronto", "status.overdue": "Vencido",
    "status.missed": "Omitido", "status.never_serviced": "Nunca atendido", "status.permit_ended": "Permiso terminado", "status.retired": "Retirado",
    "role.auditor": "auditor municipal", "role.hauler": "transportista", "role.fse": "operador del restaurante",
    "role.site": "sitio de disposición",
    loading: "Cargando…", none: "ninguno", yes: "sí", no: "no", any: "cualquiera", show: "Mostrar",
    showMore: "Mostrar más", downloadCsv: "Descargar CSV",
    "fse.title.one": "Su restaurante", "fse.title.many": "Sus restaurantes",
    "fse.none": "Aún no hay ningún restaurante vinculado a esta cuenta.",
    "fse.devicesOn": "Trampas de grasa al {day}", "fse.noDevice": "No hay trampa de grasa registrada.",
    "fse.device": "Equipo", "fse.permit": "Permiso", "fse.every": "Se bombea cada", "fse.lastService": "Último servicio completo",
    "fse.nextDue": "Próximo vencimiento", "fse.status": "Estado", "fse.days": "{n} días",
    "fse.binder": "Expediente (PDF)", "fse.zip": "Registros con escaneos (ZIP)", "fse.csv": "Servicios (CSV)",
    "fse.openRecord": "Servicios, hallazgos y mediciones",
    "fse.servicesFrom": "Servicios del {from} al {to}", "fse.completed": "Terminado", "fse.manifest": "Manifiesto",
    "fse.revision": "revisión {n}", "fse.gallons": "Galones extraídos", "fse.received": "Recibido en el sitio",
    "fse.full": "Vaciado completo", "fse.findings": "Hallazgos", "fse.scans": "Escaneos",
    "fse.summary": "{n} servicios en el período, {full} de ellos completos; {share}% presentados a tiempo.",
    "fse.noServices": "No hubo servicios en el período.",
    "fse.permitLine": "Permiso {number}: {status}", "fse.expires": ", vence el {day}",
    "fse.findingsTitle": "Hallazgos y la regla de cada uno", "fse.noFindings": "Sin hallazgos abiertos. Bien hecho.",
    "fse.rule": "Regla: {citation}",
    "log.title": "Registro de limpieza de las trampas de grasa de su cocina",
    "log.missingDay": "{device}: sin limpieza registrada el {day}",
    "log.noneMissing": "Cada día del periodo tiene su limpieza registrada.",
    "log.noRule": "Su ciudad no exige una limpieza diaria; el registro es su constancia.",
    "log.entries": "Limpiezas del {from} al {to}", "log.day": "Día", "log.by": "Limpiado por", "log.note": "Nota",
    "log.noEntries": "Ninguna limpieza registrada en el periodo.", "log.recordTitle": "Registrar una limpieza",
    "log.record": "Registrar la limpieza", "log.recorded": "Registrado: {device} limpiado el {day}.",
    "measure.none": "no hay suficientes servicios medidos", "measure.shorten": "bombear más seguido",
    "measure.lengthen": "podría bombearse con menos frecuencia", "measure.keep": "la frecuencia es correcta",
    "measure.line": "{change}: cada {days} días (ahora {now}; {n} intervalos medidos)",
    "hauler.title": "Los equipos de sus clientes", "hauler.due": "Equipos por vencer", "hauler.within": "Dentro de días",
    "hauler.restaurant": "Restaurante", "hauler.address": "Dirección",
    "hauler.due.caption": "Vencen dentro de {n} días, o ya vencidos", "hauler.dueOn": "Vence",
    "hauler.dueEmpty": "Nada de lo que usted atiende vence en ese plazo.",
    "hauler.file": "Presentar un manifiesto", "hauler.recent": "Sus manifiestos de los últimos 90 días", "hauler.correct": "Corregir",
    "hauler.noManifests": "Aún no ha presentado ningún manifiesto.",
    "form.service": "El servicio", "form.number": "Número de manifiesto", "form.permit": "Número de permiso", "form.device": "Etiqueta del equipo",
    "form.vehicle": "Camión", "form.driver": "Conductor", "form.started": "Inicio del servicio",
    "form.completed": "Fin del servicio", "form.localTime": "Hora local ({zone})", "form.waste": "Residuo",
    "form.gallons": "Galones extraídos", "form.decant": "Galones decantados de vuelta", "form.full": "Vaciado por completo",
    "form.fog": "Profundidad de grasa (pulg.)", "form.solids": "Profundidad de sólidos (pulg.)",
    "form.liquid": "Profundidad del líquido (pulg.)", "form.signer": "Firmado por el restaurante",
    "form.site": "Sitio de disposición", "form.noSite": "aún no entregado", "form.ticket": "Boleto de disposición",
    "form.delivered": "Entregado", "form.deliveredGallons": "Galones entregados", "form.scan": "Escaneo del manifiesto firmado",
    "form.reason": "Motivo de la corrección", "form.submit": "Presentar el manifiesto",
    "form.submitCorrection": "Presentar la corrección", "form.cancel": "Cancelar", "form.correcting": "Corrigiendo el manifiesto {number}",
    "waste.grease_interceptor_waste": "Residuo de interceptor de grasa", "waste.grease_trap_waste": "Residuo de trampa de grasa",
    "answer.filed": "El manifiesto {number} está presentado (revisión {revision}).",
    "answer.pending": "La corrección espera la revisión de la ciudad: mueve el manifiesto ({moves}).",
    "answer.clean": "Sin hallazgos: el servicio cumple.", "answer.findings": "Hallazgos",
    "answer.qualifying": "Cuenta como servicio completo; próximo vencimiento {day}.",
    "answer.notQualifying": "No cuenta como servicio completo.",
    "permit.active": "vigente", "permit.suspended": "suspendido", "permit.revoked": "revocado", "permit.expired": "vencido",
    "permit.not_issued": "no emitido", "kind.interceptor": "interceptor", "kind.trap": "trampa",
    language: "Idioma", signOut: "Cerrar sesión", secondFactor: "Segundo factor",
  },
};

// Each finding's code in words (what the rule asks), for the counts and for Spanish readers.
const FINDINGS = {
  en: {
    late_submission: "Manifest filed late", permit_not_active: "Serviced without a permit in force",
    waste_type_mismatch: "Waste type does not match the device", partial_pump_down: "Not fully pumped out",
    decant_returned: "Water returned to the device (decant)", twenty_five_percent_exceeded: "FOG and solids over the depth limit",
    outlet_clearance: "Grease too close to the outlet", implausible_service: "Filed too close to another service",
    hauler_licence_invalid: "Hauler's licence not valid", vehicle_unregistered: "Truck not registered to the hauler",
    disposal_site_unapproved: "Disposal site not approved", disposal_before_service: "Delivered before the service ended",
    disposal_unconfirmed: "No disposal record filed", load_shortfall: "Ticket delivered less than was pumped",
    service_interval_exceeded: "Serviced later than its frequency",
  },
  es: {
    late_submission: "Manifiesto presentado después del plazo", permit_not_active: "Permiso no vigente el día del servicio",
    waste_type_mismatch: "El residuo no corresponde al equipo", partial_pump_down: "No se vació por completo",
    decant_returned: "Líquido decantado devuelto al equipo", twenty_five_percent_exceeded: "Grasa y sólidos sobre el 25% de la profundidad",
    outlet_clearance: "Poco espacio libre en la salida", implausible_service: "Servicio inverosímil tal como se presentó",
    hauler_licence_invalid: "Licencia del transportista no válida", vehicle_unregistered: "Camión no registrado",
    disposal_site_unapproved: "Sitio de disposición no aprobado", disposal_before_service: "Entregado antes de terminar el servicio",
    disposal_unconfirmed: "Disposición aún no demostrada", load_shortfall: "Carga entregada con menos galones de los extraídos",
    service_interval_exceeded: "Atendido después del intervalo exigido",
  },
};

// The finding codes, in the order of the exchange's table (domain/facts.py CODES).
export const FINDING_CODES = Object.keys(FINDINGS.en);

// Words a view keeps in a module of its own, added to these.
export function addWords(more) {
  for (const [code, words] of Object.entries(more)) Object.assign(WORDS[code], words);
}

// Every word of a language, the views' too: the tests look for English left in a Spanish page.
export function wordsOf(code) {
  return { ...WORDS[code] };
}

export const LANGUAGES = { en: "English", es: "Español" };

let chosen = LANGUAGES[localStorage.getItem(KEPT)] ? localStorage.getItem(KEPT) : "en";
let language = chosen;

// The language the person chose (kept in this browser).
export function lang() {
  return chosen;
}

export function setLang(code) {
  chosen = LANGUAGES[code] ? code : "en";
  localStorage.setItem(KEPT, chosen);
  use(chosen);
}

// The language the page is now written in: the chosen one, or English for the views that
// are written in English alone (the auditor's and the site's).
export function use(code) {
  language = LANGUAGES[code] ? code : "en";
  document.documentElement.lang = language;
}

// The words for `key`, with {name} filled from `values`.
export function t(key, values = {}) {
  const text = WORDS[language][key] ?? WORDS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

export function findingWords(code) {
  return FINDINGS[language][code] || FINDINGS.en[code] || code.replaceAll("_", " ");
}

// The figures a finding's sentence measured, in Spanish: the API writes its sentence in English,
// and a reader of Spanish keeps the numbers (code: [the English sentence, the Spanish one]).
const FIGURES = {
  late_submission: [/^Received ([\d.]+) h after service; the deadline is (\d+) h\.$/,
    "recibido {1} h después del servicio; el plazo es de {2} h"],
  partial_pump_down: [/^(\d+) gallons removed(?: over (\d+) loads)? is under (\d+%) of the (\d+)-gallon capacity/,
    "{1} galones extraídos, menos del {3} de la capacidad de {4} galones"],
  decant_returned: [/^(\d+) gallons were returned to the device\.$/, "{1} galones devueltos al equipo"],
  twenty_five_percent_exceeded: [/^FOG and solids measured ([\d.]+) in, ([\d.]+%) of the ([\d.]+)-in design depth \(over (\d+%) is not allowed\)\.$/,
    "grasa y sólidos medidos: {1} pulg., el {2} de la profundidad de diseño de {3} pulg. (no se permite más del {4})"],
  outlet_clearance: [/^Grease or sludge measured ([\d.]+) in from the discharge elbow; within ([\d.]+) in/,
    "grasa o lodo a {1} pulg. del codo de descarga; a {2} pulg. o menos debe atenderse de inmediato"],
  load_shortfall: [/^The (\d+) manifest\(s\) on this ticket removed (\d+) gallons; the ticket delivered (\d+)\.$/,
    "los {1} manifiestos de este boleto extrajeron {2} galones; el boleto entregó {3}"],
  service_interval_exceeded: [/^(\d+) days since the previous qualifying service; at most (\d+) allowed/,
    "{1} días desde el servicio completo anterior; se permiten como máximo {2}"],
  vehicle_unregistered: [/^(\d+) gallons exceed vehicle (.+)'s (\d+)-gallon tank\.$/,
    "{1} galones superan el tanque de {3} galones del camión {2}"],
};

function figures(finding) {
  const [pattern, words] = FIGURES[finding.code] || [];
  const found = pattern && pattern.exec(finding.message || "");
  return found ? words.replace(/\{(\d)\}/g, (_, n) => found[Number(n)]) : null;
}

// The finding as a person reads it: the API's own sentence in English; in Spanish the code's
// words with the figures measured; the rule behind it either way.
export function findingText(finding) {
  if (language === "en" && finding.message) return finding.message;
  const measured = language === "es" ? figures(finding) : null;
  return measured ? `${findingWords(finding.code)}: ${measured}.` : findingWords(finding.code);
}
