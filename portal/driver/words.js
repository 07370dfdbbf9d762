// The driver's words in English and Spanish; the manifest's own field names are the portal's
// (js/i18n.js), so a field reads the same in the dispatcher's form and on the phone.
import { inWords } from "../js/field-errors.js";
import { lang, t } from "../js/i18n.js";
import { problemText } from "../js/problems.js";

const WORDS = {
  en: {
    appName: "Driver", title: "fogx driver", signInTitle: "Sign in on this phone",
    signInText: "Sign in once with the email address your invitation went to. Your stops and the manifests you file stay on this phone until they are sent, even with no signal.",
    signIn: "Sign in with your email address", signOut: "Sign out",
    signOutWaiting: "Filings are still waiting on this phone: send them before you sign out.",
    signedOut: "You are signed out.", signInAgain: "Your sign-in has ended: sign in again to send what waits.",
    online: "Online: filings are sent as soon as they are signed.",
    offline: "No signal: filings wait safely on this phone and are sent when the network returns.",
    stops: "Today's stops", stopsAsOf: "Stops due within {n} days or past due, as loaded {when}.",
    noStops: "No stops: nothing you service is due.", noDay: "Your stops are not on this phone yet: open the app once with a signal.",
    waitingCount: "{n} filing(s) waiting to send.", sendNow: "Send now",
    open: "Open stop {name}", correct: "Correct and send again: {name}",
    due: "Due {day}", device: "{tag} ({kind}, {gallons} gal)",
    "state.waiting": "Waiting to send", "state.uploading": "Sending the scans", "state.filed": "Filed", "state.refused": "Refused by the exchange",
    signedAt: "Service completed {when} (this phone's clock at signing).",
    left: "{h} h {m} min left of the {limit} hours to file.", late: "{h} h past the {limit} hours to file.",
    receipt: "Receipt: manifest {number}, revision {revision}, received {when}.", scansStored: "{n} scan(s) stored.",
    reason: "The exchange's reason: {reason}", back: "Back to the stops",
    formTitle: "Manifest for {name}", startedNote: "Service started {when} (when you opened this stop).",
    completedNote: "The service time is this phone's clock when the restaurant signs, in {zone}.",
    truck: "Truck", measured: "Measured before pumping", clearance: "Grease or sludge to the outlet elbow (in)",
    disposal: "Disposal (when already delivered)", deliveredAt: "Delivered",
    checks: "What the exchange will check", checkPending: "Not measured yet.",
    "check.capacity": "Truck capacity", "check.twentyFive": "25% rule", "check.clearance": "Outlet clearance",
    "check.full": "Full pump-down", "check.decant": "Nothing returned to the device",
    capacityOk: "{gallons} gal fits truck {truck} ({tank} gal).", capacityOver: "{gallons} gal is more than truck {truck} holds ({tank} gal).",
    capacityUnknown: "Truck {truck} is not registered in this city.",
    twentyFiveOk: "FOG and solids {sum} in: within {share}% of the {depth}-in design depth ({limit} in).",
    twentyFiveOver: "FOG and solids {sum} in: over {share}% of the {depth}-in design depth ({limit} in).",
    clearanceOk: "{value} in from the outlet: more than {limit} in.", clearanceNear: "{value} in from the outlet: within {limit} in; service immediately.",
    fullOk: "Pumped out completely, {gallons} gal: at least {share}% of {capacity} gal.",
    fullShort: "{gallons} gal is under {share}% of the {capacity}-gal capacity on this load alone.",
    fullNotAttested: "The full pump-down is not attested.", decantOk: "No gallons returned.",
    decantReturned: "{gallons} gal returned to the device.",
    willFlag: "The exchange will flag this.", rule: "Rule: {citation}",
    signature: "Signature of the restaurant's person", signHere: "Sign with a finger in the box",
    clearSignature: "Clear the signature", signatureKept: "The signature taken at the service is kept.",
    photos: "Photos, before and after (up to four)", addPhotos: "Take or add photos", removePhoto: "Remove photo {n}",
    photoAlt: "Photo {n}", tooMany: "Four photos at most: the first four are kept.",
    fileIt: "Sign and file", sendAgain: "Send again",
    needSignature: "The restaurant's person must sign first.", needFields: "Fill in the fields marked: {fields}.",
    queued: "Manifest {number} is on this phone and will be sent in order.",
    sheetTitle: "Grease control device pump-out manifest",
    // Sending, the sign-in through the day and the phone's clock.
    adopted: "This phone had filed it already; the exchange's receipt is shown.",
    pageRefused: "The signed page was not stored: {reason} Keep the paper copy.",
    photoRefused: "A photo was not stored: {reason}",
    othersFiling: "Signed by {name}: sent when they sign in on this phone.",
    signInToSendIt: "Signed by {name}: sign in to send it.",
    signInToSend: "Signed out: your stops and what waits are shown; sign in to send.",
    clockFast: "This phone's clock is {m} min ahead of the exchange's: service times are stamped on the exchange's clock.",
    clockSlow: "This phone's clock is {m} min behind the exchange's: service times are stamped on the exchange's clock.",
    completedAt: "Service completed",
    completedHint: "In {zone}. Set it right if this phone's clock was off; the start moves with it.",
  },
  es: {
    appName: "Conductor", title: "fogx conductor", signInTitle: "Inicie sesión en este teléfono",
    signInText: "Inicie sesión una vez con el correo al que llegó su invitación. Sus paradas y los manifiestos que presente se quedan en este teléfono hasta enviarse, aun sin señal.",
    signIn: "Iniciar sesión con su correo", signOut: "Cerrar sesión",
    signOutWaiting: "Aún hay manifiestos esperando en este teléfono: envíelos antes de cerrar sesión.",
    signedOut: "Ha cerrado sesión.", signInAgain: "Su sesión terminó: inicie sesión de nuevo para enviar lo pendiente.",
    online: "En línea: los manifiestos se envían en cuanto se firman.",
    offline: "Sin señal: los manifiestos esperan seguros en este teléfono y se envían cuando vuelva la red.",
    stops: "Paradas de hoy", stopsAsOf: "Paradas que vencen en {n} días o ya vencidas, cargadas {when}.",
    noStops: "Sin paradas: nada de lo que usted atiende vence.", noDay: "Sus paradas aún no están en este teléfono: abra la aplicación una vez con señal.",
    waitingCount: "{n} manifiesto(s) por enviar.", sendNow: "Enviar ahora",
    open: "Abrir la parada {name}", correct: "Corregir y enviar de nuevo: {name}",
    due: "Vence {day}", device: "{tag} ({kind}, {gallons} gal)",
    "state.waiting": "Esperando para enviar", "state.uploading": "Enviando los escaneos", "state.filed": "Presentado", "state.refused": "Rechazado por el sistema",
    signedAt: "Servicio terminado {when} (el reloj de este teléfono al firmar).",
    left: "Quedan {h} h {m} min de las {limit} horas para presentar.", late: "{h} h después de las {limit} horas para presentar.",
    receipt: "Recibo: manifiesto {number}, revisión {revision}, recibido {when}.", scansStored: "{n} escaneo(s) guardado(s).",
    reason: "Motivo del sistema: {reason}", back: "Volver a las paradas",
    formTitle: "Manifiesto de {name}", startedNote: "Servicio iniciado {when} (cuando abrió esta parada).",
    completedNote: "La hora del servicio es el reloj de este teléfono cuando el restaurante firma, en {zone}.",
    truck: "Camión", measured: "Medido antes de bombear", clearance: "Grasa o lodo hasta el codo de salida (pulg.)",
    disposal: "Disposición (si ya se entregó)", deliveredAt: "Entregado",
    checks: "Lo que revisará el sistema", checkPending: "Aún sin medir.",
    "check.capacity": "Capacidad del camión", "check.twentyFive": "Regla del 25%", "check.clearance": "Espacio en la salida",
    "check.full": "Vaciado completo", "check.decant": "Nada devuelto al equipo",
    capacityOk: "{gallons} gal caben en el camión {truck} ({tank} gal).", capacityOver: "{gallons} gal es más de lo que cabe en el camión {truck} ({tank} gal).",
    capacityUnknown: "El camión {truck} no está registrado en esta ciudad.",
    twentyFiveOk: "Grasa y sólidos {sum} pulg.: dentro del {share}% de la profundidad de diseño de {depth} pulg. ({limit} pulg.).",
    twentyFiveOver: "Grasa y sólidos {sum} pulg.: sobre el {share}% de la profundidad de diseño de {depth} pulg. ({limit} pulg.).",
    clearanceOk: "{value} pulg. hasta la salida: más de {limit} pulg.", clearanceNear: "{value} pulg. hasta la salida: dentro de {limit} pulg.; atender de inmediato.",
    fullOk: "Vaciado por completo, {gallons} gal: al menos el {share}% de {capacity} gal.",
    fullShort: "{gallons} gal es menos del {share}% de la capacidad de {capacity} gal, con esta carga sola.",
    fullNotAttested: "No se declara el vaciado completo.", decantOk: "Ningún galón devuelto.",
    decantReturned: "{gallons} gal devueltos al equipo.",
    willFlag: "El sistema lo marcará.", rule: "Regla: {citation}",
    signature: "Firma de la persona del restaurante", signHere: "Firme con el dedo en el recuadro",
    clearSignature: "Borrar la firma", signatureKept: "Se conserva la firma tomada en el servicio.",
    photos: "Fotos, antes y después (hasta cuatro)", addPhotos: "Tomar o agregar fotos", removePhoto: "Quitar la foto {n}",
    photoAlt: "Foto {n}", tooMany: "Cuatro fotos como máximo: se conservan las primeras cuatro.",
    fileIt: "Firmar y presentar", sendAgain: "Enviar de nuevo",
    needSignature: "Primero debe firmar la persona del restaurante.", needFields: "Complete los campos marcados: {fields}.",
    queued: "El manifiesto {number} está en este teléfono y se enviará en orden.",
    sheetTitle: "Manifiesto de bombeo del equipo de control de grasa",
    // Sending, the sign-in through the day and the phone's clock.
    adopted: "Este teléfono ya lo había presentado; se muestra el recibo del sistema.",
    pageRefused: "La página firmada no se guardó: {reason} Conserve la copia en papel.",
    photoRefused: "Una foto no se guardó: {reason}",
    othersFiling: "Firmado por {name}: se envía cuando esa persona inicie sesión en este teléfono.",
    signInToSendIt: "Firmado por {name}: inicie sesión para enviarlo.",
    signInToSend: "Sesión cerrada: se muestran sus paradas y lo pendiente; inicie sesión para enviar.",
    clockFast: "El reloj de este teléfono va {m} min adelantado respecto al del sistema: las horas del servicio se toman con el reloj del sistema.",
    clockSlow: "El reloj de este teléfono va {m} min atrasado respecto al del sistema: las horas del servicio se toman con el reloj del sistema.",
    completedAt: "Servicio terminado",
    completedHint: "En {zone}. Corríjala si el reloj de este teléfono estaba mal; el inicio se mueve con ella.",
  },
};

// The form's own checks, another stop, a new signature and the exchange's refusals in words.
const FORM_WORDS = {
  en: {
    otherStop: "Another stop", otherStopOpen: "File a stop not on this list",
    otherStopNote: "A new customer, an emergency or an early call: type the restaurant's permit number and the device's tag. The exchange checks them when the filing is sent.",
    otherStopTitle: "Another stop: permit {permit}, device {tag}", "form.city": "City",
    deviceUnknown: "This device is not on this phone: the exchange checks it when the filing is sent.",
    startedHint: "Local time ({zone}): when this stop was opened, unless you change it.",
    completedAtSigning: "The service is completed when the restaurant signs (this phone's clock, {zone}).",
    completedWas: "Service completed {when}, as signed.",
    startedAfter: "The service cannot start after it was completed ({when}).",
    startedFuture: "The service cannot start later than now.",
    tooLong: "A service cannot last more than 48 hours.",
    wholeGallons: "Whole gallons only, no decimals.",
    needTicket: "A disposal site is chosen: give its ticket number.",
    needDelivered: "A disposal site is chosen: give when the load was delivered.",
    needDeliveredGallons: "A disposal site is chosen: give the gallons delivered.",
    fixFields: "Nothing was filed: check the fields marked.",
    signedPageKept: "The page the restaurant signed is kept exactly as signed.",
    signAgain: "You changed what the restaurant's person signed for ({fields}): they must sign again.",
    needSignAgain: "The restaurant's person must sign again for the changed values.",
    exchangePolicy: "exchange policy", refusedFields: "{field}: {message}",
  },
  es: {
    otherStop: "Otra parada", otherStopOpen: "Presentar una parada que no está en la lista",
    otherStopNote: "Un cliente nuevo, una emergencia o una visita adelantada: escriba el número de permiso del restaurante y la etiqueta del equipo. El sistema los revisa al recibir el manifiesto.",
    otherStopTitle: "Otra parada: permiso {permit}, equipo {tag}", "form.city": "Ciudad",
    deviceUnknown: "Este equipo no está en este teléfono: el sistema lo revisa al recibir el manifiesto.",
    startedHint: "Hora local ({zone}): cuando abrió esta parada, salvo que la cambie.",
    completedAtSigning: "El servicio termina cuando el restaurante firma (el reloj de este teléfono, {zone}).",
    completedWas: "Servicio terminado {when}, según lo firmado.",
    startedAfter: "El servicio no puede empezar después de terminar ({when}).",
    startedFuture: "El servicio no puede empezar más tarde que ahora.",
    tooLong: "Un servicio no puede durar más de 48 horas.",
    wholeGallons: "Solo galones enteros, sin decimales.",
    needTicket: "Se eligió un sitio de disposición: indique el número del boleto.",
    needDelivered: "Se eligió un sitio de disposición: indique cuándo se entregó la carga.",
    needDeliveredGallons: "Se eligió un sitio de disposición: indique los galones entregados.",
    fixFields: "No se presentó nada: revise los campos marcados.",
    signedPageKept: "La página que firmó el restaurante se conserva tal como se firmó.",
    signAgain: "Cambió lo que firmó la persona del restaurante ({fields}): debe firmar de nuevo.",
    needSignAgain: "La persona del restaurante debe firmar de nuevo por los valores cambiados.",
    exchangePolicy: "política del sistema", refusedFields: "{field}: {message}",
  },
};
for (const code of Object.keys(FORM_WORDS)) Object.assign(WORDS[code], FORM_WORDS[code]);

// The driver's own words of a language (the tests look for English left in the Spanish view).
export const driverWordsOf = (code) => ({ ...WORDS[code] });

// The manifest's fields by their names in the API, as the form labels them.
const LABELS = {
  manifest_number: "form.number", permit_number: "form.permit", device_tag: "form.device", vehicle_id: "truck",
  driver_name: "form.driver", service_started_at: "form.started", service_completed_at: "form.completed",
  waste_type: "form.waste", gallons_removed: "form.gallons", decant_returned_gallons: "form.decant",
  full_pump_down: "form.full", "measurements.fog_depth_in": "form.fog", "measurements.solids_depth_in": "form.solids",
  "measurements.liquid_depth_in": "form.liquid", "measurements.outlet_clearance_in": "clearance",
  fse_signer_name: "form.signer", "disposal.site_id": "form.site", "disposal.ticket_number": "form.ticket",
  "disposal.delivered_at": "deliveredAt", "disposal.gallons_delivered": "form.deliveredGallons",
};

// A rule's citation as the person reads it: a city's section as written, exchange policy in words.
export const citationWords = (citation) => (!citation || citation === "exchange policy" ? w("exchangePolicy") : citation);

// The exchange's messages about one field, in the portal's words for them.
export const refusedWords = (messages) => [].concat(messages).map(inWords).join(" ");

// The exchange's refusal of a filing in the person's language: each field it names with the
// field's label and the portal's words for its message, or the problem's own words.
export function refusalText(filing) {
  const errors = Object.entries(filing.errors || {});
  if (errors.length) {
    return [t("problem.validation-failed"), ...errors.map(([path, messages]) => w("refusedFields", {
      field: LABELS[path] ? w(LABELS[path]) : path, message: refusedWords(messages),
    }))].join(" ");
  }
  return filing.problem ? problemText({ message: filing.reason, body: filing.problem }) : filing.reason;
}

// The driver's words for `key` in the chosen language, or the portal's where the key is one
// of its own (a manifest's fields, waste types, device kinds, statuses).
export function w(key, values = {}) {
  const text = WORDS[lang()]?.[key] ?? WORDS.en[key];
  if (text === undefined) return t(key, values);
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}
