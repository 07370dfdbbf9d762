"""What each notice says, in English and Spanish: a subject and paragraphs, filled in with
the facts of the notice (names, dates, the citation)."""

from domain import words as domain_words
from domain.notice_kinds import (
    AWAITING,
    CHOOSABLE,
    CORRECTION,
    DIGEST,
    DISPUTED,
    DUE_SOON,
    FINDINGS,
    INVITATION,
    KINDS,
    LANGUAGES,
    OVERDUE,
    RESET,
    UNRECEIVED,
    UNRECORDED,
)

__all__ = ["CHOOSABLE", "INVITATION", "KINDS", "LANGUAGES", "RESET"]

# Each kind's subject and paragraphs in each language. An invitation's or a reset's link comes
# after its last paragraph, which says what the link does: the link to copy ends the text.
WORDS = {
    "en": {
        DUE_SOON: (
            "Grease device {device_tag} at {fse_name} is due by {due_on}",
            [
                "Device {device_tag} at {fse_name} ({address}) must be pumped out by {due_on}, {days} days from today.",
                "Rule: {citation}.",
            ],
        ),
        OVERDUE: (
            "Grease device {device_tag} at {fse_name} is overdue",
            [
                "Device {device_tag} at {fse_name} ({address}) was due for a pump-out by {due_on} "
                "and no qualifying service has been filed.",
                "Rule: {citation}.",
            ],
        ),
        FINDINGS: (
            "Manifest {manifest_number} for {fse_name} has findings",
            ["Manifest {manifest_number} ({device_tag} at {fse_name}, serviced {service_on}) has these findings:"],
        ),
        DISPUTED: (
            "{site_name} disputes the delivery of manifest {manifest_number}",
            ["{site_name} disputes the delivery manifest {manifest_number} names to it.", "Reason: {reason}"],
        ),
        UNRECORDED: (
            "No disposal is on record for manifest {manifest_number}",
            [
                "Manifest {manifest_number} ({device_tag} at {fse_name}, serviced {service_on}) has no disposal "
                "on record {hours} hours after the service: file the disposal ticket as a correction.",
                "Rule: {citation}.",
            ],
        ),
        UNRECEIVED: (
            "No receipt from {site_name} for manifest {manifest_number}",
            [
                "Manifest {manifest_number} ({fse_name}) names a delivery to {site_name} on ticket {ticket_number} "
                "on {delivered_on}; {hours} hours on, the site has reported receiving no load on that ticket "
                "that day.",
                "Check the ticket with the site, or file a correction if the manifest names the wrong site, "
                "ticket or day.",
                "Rule: {citation}.",
            ],
        ),
        CORRECTION: (
            "Your correction of manifest {manifest_number} was {decision}",
            ["The city {decision} your correction of manifest {manifest_number}.", "{note}"],
        ),
        AWAITING: (
            "Deliveries awaiting confirmation at {site_name}: {count}",
            ["{count} deliveries named to {site_name} await the site's confirmation or dispute."],
        ),
        DIGEST: (
            "FOG program digest for {city_name}, {day}",
            [
                "New since yesterday in {city_name}:",
                "Missed services: {missed}. Late manifests: {late}. Disputed deliveries: {disputes}. "
                "Corrections awaiting review: {corrections}.",
                "The missed services are attached as CSV.",
            ],
        ),
        INVITATION: (
            "You are invited to fogx: {where}",
            [
                "Hello,",
                "You are invited to fogx, the FOG manifest exchange, as {role} of {where}.",
                "If you did not expect this, ignore this message.",
                "To accept, open this link within {ttl_hours} hours and choose a password "
                "(or, if you have a fogx account, give its password):",
            ],
        ),
        RESET: (
            "Reset your fogx password",
            [
                "Hello {name},",
                "Someone asked to reset the password of your fogx account. If it was not you, ignore this "
                "message: your password stays as it is.",
                "To choose a new password, open this link within {ttl_hours} hours:",
            ],
        ),
        "accept": "Accept the invitation",
        "choose_password": "Choose a new password",
        "open": "Open in fogx",
        "policy": "exchange policy",
        "approved": "approved",
        "rejected": "rejected",
        "unsubscribe": "To stop these notices, use the unsubscribe link of your mail program or open:",
    },
    "es": {
        DUE_SOON: (
            "El dispositivo de grasa {device_tag} de {fse_name} vence el {due_on}",
            [
                "El dispositivo {device_tag} de {fse_name} ({address}) debe vaciarse a más tardar el {due_on}, "
                "dentro de {days} días.",
                "Norma: {citation}.",
            ],
        ),
        OVERDUE: (
            "El dispositivo de grasa {device_tag} de {fse_name} está vencido",
            [
                "El dispositivo {device_tag} de {fse_name} ({address}) debía vaciarse a más tardar el {due_on} "
                "y no se ha presentado ningún servicio válido.",
                "Norma: {citation}.",
            ],
        ),
        FINDINGS: (
            "El manifiesto {manifest_number} de {fse_name} tiene observaciones",
            [
                "El manifiesto {manifest_number} ({device_tag} de {fse_name}, servicio del {service_on}) "
                "tiene estas observaciones:"
            ],
        ),
        DISPUTED: (
            "{site_name} impugna la entrega del manifiesto {manifest_number}",
            ["{site_name} impugna la entrega que el manifiesto {manifest_number} le atribuye.", "Motivo: {reason}"],
        ),
        UNRECORDED: (
            "No consta la disposición del manifiesto {manifest_number}",
            [
                "El manifiesto {manifest_number} ({device_tag} de {fse_name}, servicio del {service_on}) no tiene "
                "disposición registrada {hours} horas después del servicio: presente el boleto como corrección.",
                "Norma: {citation}.",
            ],
        ),
        UNRECEIVED: (
            "Sin recibo de {site_name} para el manifiesto {manifest_number}",
            [
                "El manifiesto {manifest_number} ({fse_name}) indica una entrega a {site_name} con el boleto "
                "{ticket_number} el {delivered_on}; {hours} horas después, el sitio no ha informado haber recibido "
                "ninguna carga con ese boleto ese día.",
                "Verifique el boleto con el sitio, o presente una corrección si el manifiesto indica otro sitio, "
                "boleto o día.",
                "Norma: {citation}.",
            ],
        ),
        CORRECTION: (
            "Su corrección del manifiesto {manifest_number} fue {decision}",
            ["La ciudad {decision} su corrección del manifiesto {manifest_number}.", "{note}"],
        ),
        AWAITING: (
            "Entregas por confirmar en {site_name}: {count}",
            ["{count} entregas atribuidas a {site_name} esperan que el sitio las confirme o impugne."],
        ),
        DIGEST: (
            "Resumen del programa FOG de {city_name}, {day}",
            [
                "Novedades desde ayer en {city_name}:",
                "Servicios omitidos: {missed}. Manifiestos tardíos: {late}. Entregas impugnadas: {disputes}. "
                "Correcciones por revisar: {corrections}.",
                "Los servicios omitidos van adjuntos en CSV.",
            ],
        ),
        INVITATION: (
            "Invitación a fogx: {where}",
            [
                "Hola:",
                "Le invitan a fogx, el intercambio de manifiestos de FOG, como {role} de {where}.",
                "Si no esperaba este mensaje, ignórelo.",
                "Para aceptar, abra este enlace dentro de {ttl_hours} horas y elija una contraseña "
                "(o, si ya tiene una cuenta de fogx, escriba su contraseña):",
            ],
        ),
        RESET: (
            "Restablezca su contraseña de fogx",
            [
                "Hola, {name}:",
                "Alguien pidió restablecer la contraseña de su cuenta de fogx. Si no fue usted, ignore este "
                "mensaje: su contraseña no cambia.",
                "Para elegir una contraseña nueva, abra este enlace dentro de {ttl_hours} horas:",
            ],
        ),
        "accept": "Aceptar la invitación",
        "choose_password": "Elegir una contraseña nueva",
        "open": "Abrir en fogx",
        "policy": "política del intercambio",
        "approved": "aprobada",
        "rejected": "rechazada",
        "unsubscribe": "Para dejar de recibir estos avisos, use el enlace de baja de su programa de correo o abra:",
    },
}


def language_of(value: str | None) -> str:
    return value if value in LANGUAGES else "en"


def written(kind: str, language: str, *, facts: dict, extra_lines=()) -> tuple[str, list[str]]:
    """(subject, paragraphs) of `kind` in `language`, with `extra_lines` after the first."""
    words = WORDS[language_of(language)]
    subject, lines = words[kind]
    paragraphs = [line.format(**facts) for line in lines]
    return subject.format(**facts), [paragraphs[0], *extra_lines, *paragraphs[1:]]


def word(language: str, key: str) -> str:
    return WORDS[language_of(language)][key]


# Each role an invitation names, in Spanish as the portal's admin page writes it
# (portal/js/admin-words.js); English names the role by its code.
ROLES_ES = {
    "auditor": "auditor",
    "admin": "administrador",
    "dispatcher": "despachador",
    "driver": "conductor",
    "operator": "operador",
    "clerk": "encargado",
}


def role_word(language: str, role: str) -> str:
    return ROLES_ES.get(role, role) if language_of(language) == "es" else role


# Each finding's code in Spanish, as the portal's restaurant view writes it (portal/js/i18n.js);
# English comes from `domain.words`.
FINDINGS_ES = {
    "late_submission": "Manifiesto presentado después del plazo",
    "permit_not_active": "Permiso no vigente el día del servicio",
    "waste_type_mismatch": "El residuo no corresponde al equipo",
    "partial_pump_down": "No se vació por completo",
    "decant_returned": "Líquido decantado devuelto al equipo",
    "twenty_five_percent_exceeded": "Grasa y sólidos sobre el 25% de la profundidad",
    "outlet_clearance": "Poco espacio libre en la salida",
    "implausible_service": "Servicio inverosímil tal como se presentó",
    "hauler_licence_invalid": "Licencia del transportista no válida",
    "vehicle_unregistered": "Camión no registrado",
    "disposal_site_unapproved": "Sitio de disposición no aprobado",
    "disposal_before_service": "Entregado antes de terminar el servicio",
    "disposal_unconfirmed": "Disposición aún no demostrada",
    "load_shortfall": "Carga entregada con menos galones de los extraídos",
    "service_interval_exceeded": "Atendido después del intervalo exigido",
}


def finding_line(language: str, code: str, *, citation: str, message: str) -> str:
    """One finding as a line: its words, its citation (or exchange policy), and what was found."""
    title = FINDINGS_ES.get(code) if language_of(language) == "es" else None
    cited = word(language, "policy") if citation == "exchange policy" else citation
    return f"- {title or domain_words.finding(code)} ({cited}): {message}"
