// A refusal that names no field (a problem+json of its own `type`, an OAuth error, a network
// that failed) in words of the person's language. The server's text is shown alone only for a
// type not known here; in English its detail follows the words, being in the person's language.
import { addWords, t } from "./i18n.js";

addWords({
  en: {
    "problem.bad-request": "The request could not be read.",
    "problem.unauthorized": "Your sign-in is not accepted any more. Sign in again.",
    "problem.insufficient-scope": "Your sign-in does not allow this.",
    "problem.forbidden": "Your role does not allow this.",
    "problem.not-found": "That record is not there, or not within your reach.",
    "problem.method-not-allowed": "That cannot be done here.",
    "problem.not-acceptable": "That format is not offered here.",
    "problem.conflict": "Not saved: it clashes with what is already recorded.",
    "problem.link-invalid": "That link was used already, or has expired.",
    "problem.payload-too-large": "Too large to send.",
    "problem.unsupported-media-type": "That kind of file is not accepted.",
    "problem.validation-failed": "Not saved: check what you wrote.",
    "problem.too-many-requests": "Too many requests at once: wait a minute and try again.",
    "problem.internal-error": "Something went wrong on the server; nothing was saved. Try again.",
    "problem.service-unavailable": "The service is not answering just now; nothing was saved. Try again shortly.",
    "problem.stored-scan-altered": "The stored scan failed its integrity check; the city's operators are to restore it.",
    "problem.oauth-invalid-grant": "Your sign-in has ended. Sign in again.",
    "problem.network": "fogx could not be reached: check your connection and try again.",
  },
  es: {
    "problem.bad-request": "No se pudo leer la solicitud.",
    "problem.unauthorized": "Su sesión ya no se acepta. Inicie sesión de nuevo.",
    "problem.insufficient-scope": "Su sesión no permite hacer esto.",
    "problem.forbidden": "Su función no permite hacer esto.",
    "problem.not-found": "Ese registro no existe o no está a su alcance.",
    "problem.method-not-allowed": "Eso no se puede hacer aquí.",
    "problem.not-acceptable": "Ese formato no se ofrece aquí.",
    "problem.conflict": "No se guardó: choca con lo que ya está registrado.",
    "problem.link-invalid": "Ese enlace ya se usó o venció.",
    "problem.payload-too-large": "Es demasiado grande para enviarlo.",
    "problem.unsupported-media-type": "No se acepta ese tipo de archivo.",
    "problem.validation-failed": "No se guardó: revise lo que escribió.",
    "problem.too-many-requests": "Demasiadas solicitudes a la vez: espere un minuto y vuelva a intentarlo.",
    "problem.internal-error": "Algo falló en el servidor; no se guardó nada. Vuelva a intentarlo.",
    "problem.service-unavailable": "El servicio no responde en este momento; no se guardó nada. Vuelva a intentarlo en breve.",
    "problem.stored-scan-altered": "El escaneo guardado no pasó su control de integridad; los operadores deben restaurarlo.",
    "problem.oauth-invalid-grant": "Su sesión terminó. Inicie sesión de nuevo.",
    "problem.network": "No se pudo conectar con fogx: revise su conexión y vuelva a intentarlo.",
  },
});

// The problem's kind: the last part of its `type` (…/problems/conflict), or "network" for a
// request that never got an answer.
function kindOf(error) {
  const type = error && error.body && typeof error.body.type === "string" ? error.body.type : "";
  if (type.includes("/problems/")) return type.split("/problems/").pop();
  if (error instanceof TypeError && !error.status) return "network"; // fetch's own failure
  return null;
}

// What went wrong, for the message box or beside a form's button. A refusal naming fields the
// page has no place for keeps the server's text in English, which names them.
export function problemText(error) {
  const kind = kindOf(error);
  const key = `problem.${kind}`;
  if (!kind || t(key) === key) return error.message;
  const body = error.body || {};
  const english = document.documentElement.lang === "en";
  if (english && body.errors) return error.message;
  return english && body.detail && body.detail !== body.title ? `${t(key)} ${body.detail}` : t(key);
}
