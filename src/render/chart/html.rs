//! A self-contained HTML page showing a Vega-Lite spec with vega-embed, as Altair's
//! `chart.save("x.html")` writes it: the spec, data inlined, in the page; the scripts from the
//! standard CDN.

use super::svg::esc;
use serde_json::Value;

/// The page for `spec` (which carries its data).
pub fn page(spec: &Value) -> String {
    let title = spec
        .get("title")
        .and_then(|t| t.as_str().or_else(|| t.get("text").and_then(Value::as_str)))
        .unwrap_or("Chart");
    // `</` cannot close the script element when written `<\/`, which JSON reads the same.
    let json = serde_json::to_string(spec)
        .unwrap_or_else(|_| "{}".into())
        .replace("</", "<\\/");
    format!(
        r##"<!DOCTYPE html>
<html>
<head>
  <meta charset="utf-8">
  <title>{title}</title>
  <style>body {{ font-family: Helvetica, Arial, sans-serif; margin: 2em; }} .error {{ color: #c00; }}</style>
  <script src="https://cdn.jsdelivr.net/npm/vega@5"></script>
  <script src="https://cdn.jsdelivr.net/npm/vega-lite@5"></script>
  <script src="https://cdn.jsdelivr.net/npm/vega-embed@6"></script>
</head>
<body>
  <div id="vis"></div>
  <script type="text/javascript">
    const spec = {json};
    vegaEmbed("#vis", spec, {{"mode": "vega-lite"}}).catch(function (err) {{
      const el = document.getElementById("vis");
      el.innerHTML = '<p class="error">Cannot draw the chart (are the vega scripts reachable?): ' + String(err) + '</p>';
    }});
  </script>
</body>
</html>
"##,
        title = esc(title)
    )
}
