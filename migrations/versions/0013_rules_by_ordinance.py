"""Rules true to each city's ordinance: where a device's frequency came from, San Clemente's
outlet clearance (the city's limit and the hauler's measurement), and the five preset cities'
rows brought to their ordinances: each rule cited in that city's section or as exchange policy,
Victorville's frequency list in Victorville only, traps daily where the text says so, records
kept at least three years.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

POLICY = "exchange policy"
RULES = (
    "manifest_deadline_hours",
    "retention_years",
    "permit_required",
    "waste_type_matches_device",
    "full_pump_down",
    "trap_full_pump_down",
    "full_pump_min_ratio",
    "decant_return_allowed",
    "twenty_five_percent_rule",
    "min_outlet_clearance_in",
    "interceptor_frequency",
    "interceptor_default_frequency_days",
    "interceptor_max_interval_days",
    "trap_frequency",
    "trap_default_frequency_days",
    "allowed_frequencies",
    "min_interceptor_gallons",
    "grace_days",
    "hauler_licensed",
    "hauler_registered",
    "vehicle_registered",
    "disposal_site_approved",
    "disposal_after_service",
    "disposal_confirmed",
    "ticket_reconciles",
    "plausible_service",
)
# Each preset city's sections as of this revision; every other rule is exchange policy.
CITED = {
    "placentia": {
        "permit_required": "Placentia 16.24 General Limitations (c)",
        "decant_return_allowed": "Placentia 16.24 General Limitations (b)(8)",
        "twenty_five_percent_rule": "Placentia 16.24 General Limitations (b)(9)",
        "interceptor_frequency": "Placentia 16.24 FOG Wastewater Discharge Permits (c)(3)",
        "trap_frequency": "Placentia 16.24 Facilities Requirements (c)(3)",
        "trap_default_frequency_days": "Placentia 16.24 Facilities Requirements (c)(3)",
    },
    "colusa": {
        "retention_years": "Colusa 15A-16(I)",
        "permit_required": "Colusa 15A Art. II FOG WDP required",
        "full_pump_down": "Colusa 15A-16(A)",
        "decant_return_allowed": "Colusa 15A Art. II prohibitions F",
        "twenty_five_percent_rule": "Colusa 15A-16(C)(1)",
        "interceptor_frequency": "Colusa 15A-16(D)",
        "interceptor_default_frequency_days": "Colusa 15A-16(C)(3)",
        "interceptor_max_interval_days": "Colusa 15A-16(C)(2)",
        "trap_frequency": "Colusa 15A Art. II grease traps B",
        "trap_default_frequency_days": "Colusa 15A Art. II grease traps B",
        "min_interceptor_gallons": "Colusa 15A Art. II grease interceptor requirements B",
        "disposal_site_approved": "Colusa 15A-16(G)",
    },
    "san-clemente": {
        "retention_years": "San Clemente 13.30.050(H)(1)(c)",
        "permit_required": "San Clemente 13.30.050(A)",
        "full_pump_down": "San Clemente 13.30.040(C)(9)",
        "decant_return_allowed": "San Clemente 13.30.040(C)(4)",
        "twenty_five_percent_rule": "San Clemente 13.30.040(C)(6)",
        "min_outlet_clearance_in": "San Clemente 13.30.040(C)(7)",
        "interceptor_frequency": "San Clemente 13.30.050(H)(1)(b)",
        "trap_frequency": "San Clemente 13.30.050(H)(1)(b)",
        "min_interceptor_gallons": "San Clemente 13.30.030(K)",
        "hauler_licensed": "San Clemente 13.30.040(C)(5)",
    },
    "victorville": {
        "manifest_deadline_hours": "Victorville 10.03.170(b)",
        "permit_required": "Victorville 10.03.050(a)",
        "full_pump_down": "Victorville 10.03.160(f)(1)",
        "decant_return_allowed": "Victorville 10.03.260(a)",
        "twenty_five_percent_rule": "Victorville 10.03.160(f)(1)",
        "interceptor_frequency": "Victorville 10.03.160(c)",
        "interceptor_default_frequency_days": "Victorville 10.03.160(f)(2)",
        "trap_frequency": "Victorville 10.03.160(g)(1)",
        "trap_default_frequency_days": "Victorville 10.03.160(g)(1)",
        "allowed_frequencies": "Victorville 10.03.160(b)",
        "hauler_licensed": "Victorville 10.03.160(b)",
    },
    "tracy": {
        "retention_years": "Tracy 5.26 records",
        "full_pump_down": "Tracy 5.26 interceptor maintenance (a)",
        "decant_return_allowed": "Tracy 5.26 prohibitions (f)",
        "twenty_five_percent_rule": "Tracy 5.26 prohibitions (g)",
        "interceptor_frequency": "Tracy 5.26 interceptor maintenance (b)",
        "interceptor_default_frequency_days": "Tracy 5.26 interceptor maintenance (e)(3)",
        "interceptor_max_interval_days": "Tracy 5.26 interceptor maintenance (e)(2)",
        "disposal_site_approved": "Tracy 5.26 prohibitions (f)",
    },
}
# Values the ordinances give that the earlier presets did not.
VALUES = {
    "placentia": {"allowed_frequencies": [], "trap_default_frequency_days": 1},
    "colusa": {"allowed_frequencies": [], "trap_default_frequency_days": 1},
    "san-clemente": {"allowed_frequencies": [], "min_outlet_clearance_in": 2.0},
    "victorville": {},
    "tracy": {"allowed_frequencies": []},
}
OLD_FREQUENCIES = [30, 60, 90, 120, 180]

jurisdictions = sa.table(
    "jurisdictions",
    sa.column("code", sa.String),
    sa.column("citations", sa.JSON),
    sa.column("allowed_frequencies", sa.JSON),
    sa.column("trap_default_frequency_days", sa.Integer),
    sa.column("min_outlet_clearance_in", sa.Float),
    sa.column("retention_years", sa.Integer),
)


def upgrade():
    with op.batch_alter_table("jurisdictions") as table:
        table.add_column(sa.Column("min_outlet_clearance_in", sa.Float(), nullable=True))
    with op.batch_alter_table("devices") as table:
        table.add_column(sa.Column("frequency_source", sa.String(20), nullable=False, server_default="assigned"))
        table.create_check_constraint(
            op.f("ck_devices_frequency_source"), "frequency_source IN ('assigned', 'city_default')"
        )
    with op.batch_alter_table("manifest_revisions") as table:
        table.add_column(sa.Column("outlet_clearance_in", sa.Float(), nullable=True))
    for code, cited in CITED.items():
        citations = {rule: cited.get(rule, POLICY) for rule in RULES}
        op.execute(
            jurisdictions.update().where(jurisdictions.c.code == code).values(citations=citations, **VALUES[code])
        )
    # Records are kept at least three years (exchange policy), longer where a city says so.
    op.execute(jurisdictions.update().where(jurisdictions.c.retention_years < 3).values(retention_years=3))


def downgrade():
    op.execute(
        jurisdictions.update().where(jurisdictions.c.code.in_(tuple(CITED))).values(allowed_frequencies=OLD_FREQUENCIES)
    )
    with op.batch_alter_table("manifest_revisions") as table:
        table.drop_column("outlet_clearance_in")
    with op.batch_alter_table("devices") as table:
        table.drop_constraint(op.f("ck_devices_frequency_source"), type_="check")
        table.drop_column("frequency_source")
    with op.batch_alter_table("jurisdictions") as table:
        table.drop_column("min_outlet_clearance_in")
