//! What the lesson builder hands out: the iframe and JS snippets, `bplab.html`
//! with the question in its questions block, and a SCORM 1.2 zip of that file
//! with `imsmanifest.xml` (the same template `scripts/build-web.sh` fills).

use crate::question::{BLOCK_ID, encode, quote};

/// The manifest template shared with `scripts/build-web.sh`.
pub const MANIFEST: &str = include_str!("../../../../web/scorm/imsmanifest.xml");

/// Text for XML character data and attribute values.
fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `imsmanifest.xml` for one lesson; `mastery` (0–100) adds `adlcp:masteryscore`.
pub fn manifest(id: &str, title: &str, mastery: Option<f64>) -> String {
    let ident: String = id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
    let m = mastery.map(|m| format!("\n        <adlcp:masteryscore>{m}</adlcp:masteryscore>")).unwrap_or_default();
    MANIFEST
        .replace("{identifier}", &format!("bplab-{ident}"))
        .replace("{title}", &xml_escape(title))
        .replace("{mastery}", &m)
}

/// `page` (the pristine single file) with its questions block replaced by `block` (JSON).
pub fn with_block(page: &str, block: &str) -> Result<String, String> {
    let at = page.find(&format!("id=\"{BLOCK_ID}\"")).ok_or("the page has no questions block")?;
    let open = at + page.get(at..).and_then(|t| t.find('>')).ok_or("the questions block is not closed")? + 1;
    let close = open + page.get(open..).and_then(|t| t.find("</script>")).ok_or("the questions block has no end")?;
    // `</` inside the JSON would end the element: JSON lets `/` be escaped.
    let safe = block.replace("</", "<\\/");
    Ok(format!("{}\n{safe}\n{}", page.get(..open).unwrap_or_default(), page.get(close..).unwrap_or_default()))
}

/// The page's questions block for one lesson: that question, its widget shown alone.
pub fn block(widget: &str, question_json: &str) -> String {
    format!("{{ \"embed\": {}, \"questions\": [\n{question_json}\n] }}", quote(widget))
}

/// The embed query of the lesson: `?embed=w&params…&qj=…` (no `qj` without a question).
pub fn query(widget: &str, params: &[(String, String)], question_json: Option<&str>) -> String {
    let mut q = format!("?embed={widget}");
    for (k, v) in params {
        q.push_str(&format!("&{k}={}", String::from(js_sys::encode_uri_component(v))));
    }
    if let Some(j) = question_json {
        q.push_str(&format!("&qj={}", encode(j)));
    }
    q
}

/// The iframe snippet for a lab served at `base` (a URL ending in `/` or a page).
pub fn iframe(base: &str, widget: &str, params: &[(String, String)], question_json: &str) -> String {
    let src = format!("{base}{}", query(widget, params, Some(question_json)));
    format!(
        "<iframe src=\"{}\" title=\"bplab: the {widget} widget\" width=\"100%\" height=\"640\" style=\"border:0\" loading=\"lazy\"></iframe>",
        xml_escape(&src)
    )
}

/// The JS snippet: `mount()` from the JS API next to the lab at `dir`.
pub fn js(dir: &str, widget: &str, params: &[(String, String)], question_json: &str) -> String {
    let p: Vec<String> = params.iter().map(|(k, v)| format!("{}: {}", quote(k), quote(v))).collect();
    format!(
        "<div id=\"bplab-{widget}\"></div>\n<script type=\"module\">\n  import {{ mount }} from '{dir}bplab-api.js';\n  mount(document.getElementById('bplab-{widget}'), {{\n    widget: '{widget}',\n    params: {{ {} }},\n    question: {question_json},\n  }});\n</script>\n",
        p.join(", ")
    )
}

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as zip requires.
#[allow(clippy::indexing_slicing)] // evaluated at compile time; i < 256 by the loop bound
const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// The CRC-32 of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    !data.iter().fold(!0u32, |c, &b| {
        let i = ((c ^ u32::from(b)) & 0xFF) as usize; // < 256
        CRC_TABLE.get(i).copied().unwrap_or(0) ^ (c >> 8)
    })
}

/// A zip of `files`, stored without compression (the page's wasm is
/// gzip-packed already): local headers, then the central directory, then its
/// end record (PKWARE APPNOTE 4.3; no zip64, so every size and offset must
/// fit 32 bits). Entries are regular files of mode 0644 (readable by all). Names are UTF-8 (flag bit 11); times are 1980-01-01 00:00,
/// so the same files give the same bytes. Written here rather than with the
/// `zip` crate, whose weight in the page's wasm for this one call is in
/// `docs/performance.md`.
pub fn zip(files: &[(&str, &[u8])]) -> Result<Vec<u8>, String> {
    const UTF8: u16 = 1 << 11;
    const DATE_1980_01_01: u16 = (1 << 5) | 1;
    // Made on Unix (3 in the high byte), so that unzip reads the external
    // attributes' high half as the mode: a regular file readable by all (0644).
    const UNIX_20: u16 = (3 << 8) | 20;
    const MODE_0644: u32 = 0o100_644 << 16;
    let fit = |n: usize, what: &str| u32::try_from(n).map_err(|_| format!("zip: {what} over 4 GiB"));
    let fit16 =
        |n: usize| u16::try_from(n).map_err(|_| "zip: more than 65535 files or a name over 65535 bytes".to_owned());
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let offset = fit(out.len(), "the archive")?;
        let (size, crc, name_len) = (fit(data.len(), name)?, crc32(data), fit16(name.len())?);
        // Fields shared by the local header and the central entry, from "version needed".
        let mut common = Vec::with_capacity(26);
        for v in [20u16, UTF8, 0, 0, DATE_1980_01_01] {
            common.extend_from_slice(&v.to_le_bytes());
        }
        for v in [crc, size, size] {
            common.extend_from_slice(&v.to_le_bytes());
        }
        common.extend_from_slice(&name_len.to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes()); // extra field length
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&common);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&UNIX_20.to_le_bytes()); // version made by
        central.extend_from_slice(&common);
        for v in [0u16, 0, 0] {
            central.extend_from_slice(&v.to_le_bytes()); // comment length, disk, internal attributes
        }
        central.extend_from_slice(&MODE_0644.to_le_bytes()); // external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let (cd_offset, cd_size, n) =
        (fit(out.len(), "the archive")?, fit(central.len(), "the directory")?, fit16(files.len())?);
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    for v in [0u16, 0, n, n] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&cd_size.to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment length
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)] // a test fails loudly
mod tests {
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::{crc32, zip};

    // Without it wasm-pack's browser run skips the lib's tests as node-only.
    wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen_test]
    fn crc32_gives_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[wasm_bindgen_test]
    fn zip_lays_out_headers_directory_and_end_record() {
        let z = zip(&[("a.txt", b"hi"), ("dir/b", b"")]).unwrap();
        // Local header 30 + 5 + 2, then 30 + 5; central 46 + 5 and 46 + 5; end 22.
        assert_eq!(z.len(), 37 + 35 + 51 + 51 + 22);
        assert_eq!(&z[..4], &[0x50, 0x4b, 0x03, 0x04]);
        let end = &z[z.len() - 22..];
        assert_eq!(&end[..4], &[0x50, 0x4b, 0x05, 0x06]);
        assert_eq!(u16::from_le_bytes([end[10], end[11]]), 2, "entries");
        assert_eq!(u32::from_le_bytes([end[16], end[17], end[18], end[19]]), 72, "directory offset");
        assert_eq!(u32::from_le_bytes([z[14], z[15], z[16], z[17]]), crc32(b"hi"));
        // The first central entry: made on Unix, mode 0644 in the external attributes.
        let c = &z[72..];
        assert_eq!(&c[..4], &[0x50, 0x4b, 0x01, 0x02]);
        assert_eq!(c[5], 3, "made by Unix");
        assert_eq!(u32::from_le_bytes([c[38], c[39], c[40], c[41]]) >> 16, 0o100_644, "mode 0644");
    }
}
