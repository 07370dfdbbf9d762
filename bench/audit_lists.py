"""The auditor's lists timed: missed services against a hand-written statement, and the CSV lists."""

import statistics
import time
from datetime import UTC, datetime, timedelta

import psycopg
import requests

# The question the API answers, field for field, as one statement written by hand: each
# device's last qualifying service up to the end of its city's day by one probe of the partial
# index (dated on that local day), its permit's status on the day and whether it still holds
# (not revoked, not expired), the last hauler's name, and where it stands (overdue within the
# grace, never past the longest interval, missed beyond it, never serviced); each code with its
# words beside it.
HAND_WRITTEN_AS_OF = """
SELECT answered.*,
       CASE answered.permit_status WHEN 'active' THEN 'Active' WHEN 'suspended' THEN 'Suspended'
            WHEN 'revoked' THEN 'Revoked' WHEN 'expired' THEN 'Expired' ELSE 'Not issued' END
         AS permit_status_words,
       CASE answered.device_kind WHEN 'trap' THEN 'Trap' ELSE 'Interceptor' END AS device_kind_words
FROM (
SELECT f.id AS fse_id, f.name AS fse_name, f.address, j.code AS jurisdiction, p.permit_number,
       CASE WHEN p.issued_on > %(as_of)s THEN 'not_issued'
            ELSE COALESCE(NULLIF((SELECT s.status FROM permit_status_changes s
                                  WHERE s.permit_id = p.id AND s.effective_on <= %(as_of)s
                                  ORDER BY s.effective_on DESC, s.recorded_at DESC LIMIT 1), 'active'),
                          CASE WHEN p.expires_on < %(as_of)s THEN 'expired' ELSE 'active' END)
       END AS permit_status,
       d.id AS device_id, d.tag AS device_tag, d.kind AS device_kind, freq.days AS frequency_days,
       grace.days AS grace_days,
       last.service_on AS last_service_on, last.manifest_id AS last_manifest_id,
       last.manifest_number AS last_manifest_number, last.hauler_id AS last_hauler_id,
       (SELECT h.name FROM haulers h WHERE h.id = last.hauler_id) AS last_hauler_name,
       COALESCE(last.service_on, p.issued_on) + freq.days AS due_on,
       %(as_of)s::date - (COALESCE(last.service_on, p.issued_on) + freq.days) AS days_overdue,
       CASE WHEN last.manifest_id IS NULL THEN 'never_serviced'
            WHEN %(as_of)s::date - (COALESCE(last.service_on, p.issued_on) + freq.days) <= grace.days
            THEN 'overdue' ELSE 'missed' END AS status,
       CASE WHEN last.manifest_id IS NULL THEN 'Never serviced'
            WHEN %(as_of)s::date - (COALESCE(last.service_on, p.issued_on) + freq.days) <= grace.days
            THEN 'Overdue' ELSE 'Missed' END AS status_words
FROM devices d JOIN fses f ON f.id = d.fse_id JOIN permits p ON p.id = d.permit_id
JOIN jurisdictions j ON j.id = f.jurisdiction_id
CROSS JOIN LATERAL (SELECT CASE WHEN d.kind = 'interceptor' AND j.interceptor_max_interval_days < d.frequency_days
                                THEN j.interceptor_max_interval_days ELSE d.frequency_days END AS days) freq
CROSS JOIN LATERAL (SELECT CASE WHEN d.kind = 'interceptor'
                                     AND j.interceptor_max_interval_days - freq.days < j.grace_days
                                THEN j.interceptor_max_interval_days - freq.days ELSE j.grace_days END AS days) grace
LEFT JOIN LATERAL (
  SELECT (r.service_completed_at AT TIME ZONE j.time_zone)::date AS service_on, m.id AS manifest_id,
         m.manifest_number, m.hauler_id
  FROM manifest_revisions r JOIN manifests m ON m.id = r.manifest_id AND m.current_revision = r.revision
  WHERE r.device_id = d.id AND r.qualifying AND r.service_completed_at < (%(end)s::timestamp AT TIME ZONE j.time_zone)
  ORDER BY r.service_completed_at DESC LIMIT 1
) last ON true
LEFT JOIN LATERAL (
  SELECT CASE WHEN s.status IN ('revoked', 'expired') THEN s.effective_on END AS ending_on
  FROM permit_status_changes s WHERE s.permit_id = p.id AND s.effective_on <= %(as_of)s
  ORDER BY s.effective_on DESC, s.recorded_at DESC LIMIT 1
) ending ON true
WHERE f.jurisdiction_id = %(jurisdiction)s AND p.issued_on <= %(as_of)s
  AND LEAST(ending.ending_on, p.expires_on + 1) > %(as_of)s
  AND %(as_of)s::date - (COALESCE(last.service_on, p.issued_on) + freq.days) > 0
ORDER BY days_overdue DESC, d.id
LIMIT 1000
) answered
ORDER BY answered.days_overdue DESC, answered.device_id
"""


def as_of_query(base, auditor_token, dsn, city):
    as_of = datetime.now(UTC).date()

    def sql():
        with psycopg.connect(dsn, options="-c jit=off") as conn:
            return len(
                conn.execute(
                    HAND_WRITTEN_AS_OF,
                    {
                        "as_of": as_of,
                        "end": as_of + timedelta(days=1),
                        "jurisdiction": city.jurisdictions["victorville"],
                    },
                ).fetchall()
            )

    api, hand_written = in_turns(lambda: as_of_api(base, auditor_token, as_of), sql)
    return api * 1000, hand_written * 1000


def as_of_api(base, auditor_token, as_of):
    response = requests.get(
        f"{base}/v1/audit/missed-services",
        params={"as_of": as_of.isoformat(), "limit": 1000},
        headers={"Authorization": f"Bearer {auditor_token}"},
        timeout=120,
    )
    assert response.status_code == 200, response.text
    return len(response.json()["items"])


def in_turns(*calls, rounds=7):
    """Each call's median seconds: each made once first, then `rounds` times in turns, so
    that all meet this shared machine in the same moods."""
    for call in calls:
        call()
    taken = [[] for _ in calls]
    for _ in range(rounds):
        for call, times in zip(calls, taken):
            started = time.perf_counter()
            call()
            times.append(time.perf_counter() - started)
    return [statistics.median(times) for times in taken]
