//! Memory folders with their MEMORY.md index.

use super::*;

pub(crate) fn memories(
    g: &Gen,
    r: &mut Rng,
    p: &Project,
    root: &Path,
    stats: &mut Stats,
) -> Res<()> {
    let dir = root.join("projects").join(&p.dir).join("memory");
    mkdir(&dir)?;
    let st = Style {
        lang: p.lang,
        esc: false,
    };
    let n = r.range(3, 8);
    let mut index = Vec::new();
    index
        .s("# Memory Index\n\nMemory for ")
        .s(&p.name)
        .s(". Read the relevant files before answering.\n");
    let mut used: Vec<String> = Vec::new();
    let mut last_kind = "";
    const ORDER: [&str; 4] = ["user", "feedback", "project", "reference"];
    let mut kinds: Vec<&str> = (0..n)
        .map(|i| match (i, r.below(10)) {
            (0, _) => "user",
            (_, 0..=3) => "feedback",
            (_, 4..=7) => "project",
            _ => "reference",
        })
        .collect();
    kinds.sort_by_key(|k| ORDER.iter().position(|o| o == k));
    for kind in kinds {
        let topic = loop {
            let t = format!("{}_{}", r.word(ADJS), r.word(NOUNS).replace(' ', "_"));
            if !used.contains(&t) {
                break t;
            }
        };
        used.push(topic.clone());
        let file = format!("{kind}_{topic}.md");
        let name = capitalize(&topic.replace('_', " "));
        let mut desc = Vec::new();
        g.sentence(r, &mut desc, st, false);
        let desc = String::from_utf8_lossy(&desc).replace(':', " -");
        let mut body = Vec::new();
        body.s("---\nname: ")
            .s(&name)
            .s("\ndescription: ")
            .s(&desc)
            .s("\ntype: ")
            .s(kind)
            .s("\n");
        if r.chance(0.3) {
            body.s("originSessionId: ").s(&uuid(r)).s("\n");
        }
        body.s("---\n\n");
        match kind {
            "feedback" => {
                g.sentence(r, &mut body, st, false);
                body.s("\n\n**Why:** ");
                let k = r.range(1, 3);
                g.paragraph(r, &mut body, st, k);
                body.s("\n\n**How to apply:** ");
                let k = r.range(1, 3);
                g.paragraph(r, &mut body, st, k);
                body.s("\n");
            }
            "user" => {
                body.s("The user works on ")
                    .s(&p.name)
                    .s(" (")
                    .s(p.lang.fence())
                    .s("). ");
                let k = r.range(2, 5);
                g.paragraph(r, &mut body, st, k);
                body.s("\n");
            }
            _ => {
                let b = r.range(200, 3000) as usize;
                g.markdown(r, &mut body, st, b);
                body.s("\n");
            }
        }
        write_file(stats, &dir.join(&file), &body)?;
        if kind != last_kind {
            let heading = match kind {
                "user" => "User",
                "feedback" => "Feedback",
                "project" => "Projects",
                _ => "References",
            };
            index.s("\n## ").s(heading).s("\n");
            last_kind = kind;
        }
        index
            .s("- [")
            .s(&name)
            .s("](")
            .s(&file)
            .s(") — ")
            .s(&desc)
            .s("\n");
    }
    write_file(stats, &dir.join("MEMORY.md"), &index)
}
