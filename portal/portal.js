// The fogx portal: what a signed-in person may see and do, through the same API as any dispatch
// or city software. Each role's view lives in a module of its own under js/. A browser is a
// public client: people sign in here as people; programs keep their secrets on their servers.
import { finishSignIn, startSignIn } from "./person.js";
import { begin, resume, session, signOut } from "./js/api.js";
import { el, report } from "./js/dom.js";
import { hold } from "./js/drafts.js";
import { LANGUAGES, lang, setLang, t, use } from "./js/i18n.js";
import { admin } from "./js/admin.js";
import { auditor } from "./js/auditor.js";
import { hauler } from "./js/hauler.js";
import { restaurants } from "./js/restaurant.js";
import { site } from "./js/site.js";
import { noticeChoices } from "./js/notices.js";
import { withStaff } from "./js/staff.js";

const VIEWS = { admin, auditor, hauler: withStaff(hauler, "hauler"), fse: restaurants, site: withStaff(site, "site") };
// The views a person may read in Spanish; the others are in English alone.
const BILINGUAL = new Set(["hauler", "fse", "admin"]);

function roleOf(scopes) {
  if (scopes.has("registry:write")) return "admin";
  if (scopes.has("audit:read")) return "auditor";
  if (scopes.has("manifests:write")) return "hauler";
  if (scopes.has("records:read")) return "fse";
  return "site";
}

let shown = 0; // the latest view asked for; an earlier one still loading is dropped

async function showView() {
  const current = session();
  const view = document.getElementById("view");
  document.getElementById("sign-in").hidden = true;
  document.getElementById("who").hidden = false;
  view.hidden = false;
  view.replaceChildren(el("p", { class: "loading" }, t("loading")));
  const role = roleOf(new Set(current.scopes));
  use(BILINGUAL.has(role) ? lang() : "en");
  document.getElementById("language-switch").hidden = !BILINGUAL.has(role);
  document.getElementById("who-name").textContent = `${current.clientId} · ${t(`role.${role}`)}`;
  document.getElementById("second-factor").hidden = !current.person;
  document.getElementById("second-factor").textContent = t("secondFactor");
  document.getElementById("sign-out").textContent = t("signOut");
  const asked = ++shown;
  const parts = await VIEWS[role]();
  // A person (not a program) chooses the notices they are sent by email; the view stands without it.
  const choices = current.person ? await noticeChoices(role).catch(() => null) : null;
  if (choices) parts.push(choices);
  if (asked === shown && session()) view.replaceChildren(...parts);
}

function languageSwitch() {
  const choice = document.getElementById("language");
  choice.replaceChildren(...Object.entries(LANGUAGES).map(([code, name]) => el("option", { value: code, lang: code }, name)));
  choice.value = lang();
  choice.addEventListener("change", () => {
    setLang(choice.value);
    document.querySelector("label[for=language]").textContent = t("language");
    if (session()) {
      hold(); // a half-typed form comes back in the other language
      showView().catch(report);
    }
  });
  document.querySelector("label[for=language]").textContent = t("language");
}

function start() {
  languageSwitch();
  document.getElementById("sign-out").addEventListener("click", () => signOut());
  document.getElementById("person-sign-in").addEventListener("click", () => startSignIn().catch(report));
  resume();
  finishSignIn().then((signedIn) => {
    if (signedIn) begin(signedIn.token, signedIn.name, true);
    if (session()) return showView();
  }).catch(report);
}

start();
