"""The report page's stylesheet, inlined so report.html needs nothing outside itself."""

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5rem 2rem;
       color: #1d1d1f; background: #fafafa; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
.meta { color: #555; font-size: .85rem; }
table { border-collapse: collapse; font-size: .82rem; margin: .5rem 0; background: #fff; }
th, td { border: 1px solid #ddd; padding: .2rem .45rem; text-align: left; vertical-align: top; }
th { background: #f0f0f0; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.cell { text-align: center; min-width: 4.5rem; font-variant-numeric: tabular-nums; }
.v-pass { background: #c8e6c9; } .v-xfail { background: #fff3c4; }
.v-fail { background: #ffcdd2; font-weight: 600; } .v-error { background: #e1bee7; font-weight: 600; }
.v-unsupported { background: #eceff1; color: #777; } .v-none { background: #fff; color: #bbb; }
.legend span { display: inline-block; padding: .1rem .5rem; margin-right: .3rem;
               border: 1px solid #ccc; font-size: .8rem; }
.hists { display: flex; flex-wrap: wrap; gap: .6rem; }
.hists figure { margin: 0; background: #fff; border: 1px solid #e3e3e3; }
details { margin: .4rem 0; background: #fff; border: 1px solid #e3e3e3; padding: .3rem .6rem; }
summary { cursor: pointer; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; font-size: .78rem; }
code { font-size: .85em; }
.ok { color: #2e7d32; } .bad { color: #c62828; font-weight: 600; }
"""
