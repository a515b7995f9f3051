//! Reading an OpenStreetMap extract: every builder (road graph, geocoder,
//! basemap) walks the same stream of nodes, ways and relations, whether the
//! file is the binary `.osm.pbf` that Geofabrik and BBBike ship or the XML
//! `.osm` that the OSM editors export and the tests write by hand.
//!
//! The stream is owned values so both formats share one type; nodes without
//! tags (nearly all of them) carry an empty tag list, which allocates nothing.

use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// An element's tags, in file order.
pub type Tags = Vec<(String, String)>;

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: i64,
    pub lat: f64,
    pub lng: f64,
    pub tags: Tags,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Way {
    pub id: i64,
    /// Node ids in order; a closed way repeats its first node at the end.
    pub nodes: Vec<i64>,
    pub tags: Tags,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    Node,
    Way,
    Relation,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub kind: MemberKind,
    pub id: i64,
    pub role: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Relation {
    pub id: i64,
    pub members: Vec<Member>,
    pub tags: Tags,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Element {
    Node(Node),
    Way(Way),
    Relation(Relation),
}

/// The value of `key`, if the element has it.
pub fn tag<'a>(tags: &'a Tags, key: &str) -> Option<&'a str> {
    tags.iter().find(|(name, _)| name == key).map(|(_, value)| value.as_str())
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a valid .osm.pbf file: {message}")]
    Pbf { path: String, message: String },
    #[error("{path} is not a valid .osm XML file: {message}")]
    Xml { path: String, message: String },
}

/// Calls `visit` with every element of the file, in file order (nodes, then
/// ways, then relations in a sorted extract). The format is told by the
/// first bytes, not the name: XML starts with `<`, anything else is PBF.
pub fn read_elements(path: &Path, mut visit: impl FnMut(Element)) -> Result<(), SourceError> {
    let shown = path.display().to_string();
    let io_error = |source| SourceError::Io { path: shown.clone(), source };
    let mut reader = BufReader::new(File::open(path).map_err(io_error)?);
    let is_xml = reader.fill_buf().map_err(io_error)?.iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b'<');
    if is_xml {
        read_xml(reader, &mut visit).map_err(|message| SourceError::Xml { path: shown.clone(), message })
    } else {
        read_pbf(reader, &mut visit).map_err(|message| SourceError::Pbf { path: shown.clone(), message })
    }
}

fn owned_tags<'a>(tags: impl Iterator<Item = (&'a str, &'a str)>) -> Tags {
    tags.map(|(key, value)| (key.to_owned(), value.to_owned())).collect()
}

fn read_pbf(reader: impl Read + Send, visit: &mut impl FnMut(Element)) -> Result<(), String> {
    use osmpbf::{Element as Pbf, ElementReader, RelMemberType};
    ElementReader::new(reader)
        .for_each(|element| {
            let element = match element {
                Pbf::Node(node) => Element::Node(Node {
                    id: node.id(),
                    lat: node.lat(),
                    lng: node.lon(),
                    tags: owned_tags(node.tags()),
                }),
                Pbf::DenseNode(node) => Element::Node(Node {
                    id: node.id(),
                    lat: node.lat(),
                    lng: node.lon(),
                    tags: owned_tags(node.tags()),
                }),
                Pbf::Way(way) => {
                    Element::Way(Way { id: way.id(), nodes: way.refs().collect(), tags: owned_tags(way.tags()) })
                }
                Pbf::Relation(relation) => Element::Relation(Relation {
                    id: relation.id(),
                    members: relation
                        .members()
                        .map(|member| Member {
                            kind: match member.member_type {
                                RelMemberType::Node => MemberKind::Node,
                                RelMemberType::Way => MemberKind::Way,
                                RelMemberType::Relation => MemberKind::Relation,
                            },
                            id: member.member_id,
                            role: member.role().unwrap_or_default().to_owned(),
                        })
                        .collect(),
                    tags: owned_tags(relation.tags()),
                }),
            };
            visit(element);
        })
        .map_err(|error| error.to_string())
}

fn read_xml(reader: impl BufRead, visit: &mut impl FnMut(Element)) -> Result<(), String> {
    use quick_xml::events::{BytesStart, Event};

    fn attribute(start: &BytesStart, name: &[u8]) -> Result<Option<String>, String> {
        for attribute in start.attributes() {
            let attribute = attribute.map_err(|error| error.to_string())?;
            if attribute.key.as_ref() == name {
                let value = attribute.unescape_value().map_err(|error| error.to_string())?;
                return Ok(Some(value.into_owned()));
            }
        }
        Ok(None)
    }
    fn number<T: std::str::FromStr>(start: &BytesStart, name: &[u8]) -> Result<T, String> {
        let element = String::from_utf8_lossy(start.name().as_ref()).into_owned();
        let text =
            attribute(start, name)?.ok_or_else(|| format!("<{element}> without {}", String::from_utf8_lossy(name)))?;
        text.parse().map_err(|_| format!("<{element}> has a bad {}: {text}", String::from_utf8_lossy(name)))
    }

    let mut xml = quick_xml::Reader::from_reader(reader);
    let mut buffer = Vec::new();
    // The element whose children (tags, node refs, members) are being read.
    let mut open: Option<Element> = None;
    loop {
        let event = xml.read_event_into(&mut buffer).map_err(|error| error.to_string())?;
        let (start, closes_at_once) = match &event {
            Event::Start(start) => (Some(start), false),
            Event::Empty(start) => (Some(start), true),
            Event::End(end) => {
                if matches!(end.name().as_ref(), b"node" | b"way" | b"relation")
                    && let Some(element) = open.take()
                {
                    visit(element);
                }
                buffer.clear();
                continue;
            }
            Event::Eof => break,
            _ => (None, false),
        };
        if let Some(start) = start {
            match start.name().as_ref() {
                b"node" => {
                    let node = Node {
                        id: number(start, b"id")?,
                        lat: number(start, b"lat")?,
                        lng: number(start, b"lon")?,
                        tags: Vec::new(),
                    };
                    open = Some(Element::Node(node));
                }
                b"way" => {
                    open = Some(Element::Way(Way { id: number(start, b"id")?, nodes: Vec::new(), tags: Vec::new() }))
                }
                b"relation" => {
                    let relation = Relation { id: number(start, b"id")?, members: Vec::new(), tags: Vec::new() };
                    open = Some(Element::Relation(relation));
                }
                b"tag" => {
                    let key = attribute(start, b"k")?.ok_or("<tag> without k")?;
                    let value = attribute(start, b"v")?.unwrap_or_default();
                    match &mut open {
                        Some(Element::Node(Node { tags, .. }))
                        | Some(Element::Way(Way { tags, .. }))
                        | Some(Element::Relation(Relation { tags, .. })) => tags.push((key, value)),
                        None => return Err("<tag> outside an element".into()),
                    }
                }
                b"nd" => match &mut open {
                    Some(Element::Way(way)) => way.nodes.push(number(start, b"ref")?),
                    _ => return Err("<nd> outside a way".into()),
                },
                b"member" => {
                    let kind = match attribute(start, b"type")?.as_deref() {
                        Some("node") => MemberKind::Node,
                        Some("way") => MemberKind::Way,
                        Some("relation") => MemberKind::Relation,
                        other => return Err(format!("<member> of unknown type {other:?}")),
                    };
                    let member = Member {
                        kind,
                        id: number(start, b"ref")?,
                        role: attribute(start, b"role")?.unwrap_or_default(),
                    };
                    match &mut open {
                        Some(Element::Relation(relation)) => relation.members.push(member),
                        _ => return Err("<member> outside a relation".into()),
                    }
                }
                _ => {}
            }
            // `<node … />` has no end tag of its own.
            if closes_at_once
                && matches!(start.name().as_ref(), b"node" | b"way" | b"relation")
                && let Some(element) = open.take()
            {
                visit(element);
            }
        }
        buffer.clear();
    }
    Ok(())
}

/// The SHA-256 of the file's bytes, in hex: the key prepared data is cached
/// under, so a changed extract is prepared again and an unchanged one never.
pub fn content_hash(path: &Path) -> Result<String, SourceError> {
    let shown = path.display().to_string();
    let mut file = File::open(path).map_err(|source| SourceError::Io { path: shown.clone(), source })?;
    let mut hasher = Sha256::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let read = file.read(&mut chunk).map_err(|source| SourceError::Io { path: shown.clone(), source })?;
        if read == 0 {
            break;
        }
        hasher.update(&chunk[..read]);
    }
    Ok(hex::encode(hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn repo_file(relative: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(relative)
    }

    fn count(path: &Path) -> (usize, usize, usize) {
        let (mut nodes, mut ways, mut relations) = (0, 0, 0);
        read_elements(path, |element| match element {
            Element::Node(_) => nodes += 1,
            Element::Way(_) => ways += 1,
            Element::Relation(_) => relations += 1,
        })
        .unwrap();
        (nodes, ways, relations)
    }

    #[test]
    fn the_demo_extract_reads_as_nodes_ways_and_relations_with_tags() {
        let path = repo_file("data/baltimore.osm.pbf");
        let (nodes, ways, relations) = count(&path);
        assert!(nodes > 10_000 && ways > 3_000 && relations > 10, "{nodes} {ways} {relations}");
        let mut named_roads = 0;
        read_elements(&path, |element| {
            if let Element::Way(way) = element
                && tag(&way.tags, "highway").is_some()
                && tag(&way.tags, "name").is_some()
            {
                assert!(way.nodes.len() >= 2);
                named_roads += 1;
            }
        })
        .unwrap();
        assert!(named_roads > 1_000, "{named_roads}");
    }

    #[test]
    fn an_xml_file_gives_the_same_kind_of_elements() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tiny.osm");
        std::fs::write(
            &path,
            r#"<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6">
  <node id="1" lat="39.28" lon="-76.60"/>
  <node id="2" lat="39.29" lon="-76.61"><tag k="name" v="Fells &amp; Point"/></node>
  <way id="10"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/><tag k="oneway" v="yes"/></way>
  <relation id="20">
    <member type="way" ref="10" role="from"/><member type="node" ref="2" role="via"/>
    <tag k="type" v="restriction"/><tag k="restriction" v="no_left_turn"/>
  </relation>
</osm>"#,
        )
        .unwrap();
        let mut elements = Vec::new();
        read_elements(&path, |element| elements.push(element)).unwrap();
        assert_eq!(elements.len(), 4);
        assert_eq!(elements[0], Element::Node(Node { id: 1, lat: 39.28, lng: -76.60, tags: vec![] }));
        let Element::Node(named) = &elements[1] else { panic!("{:?}", elements[1]) };
        assert_eq!(tag(&named.tags, "name"), Some("Fells & Point"));
        let Element::Way(way) = &elements[2] else { panic!("{:?}", elements[2]) };
        assert_eq!((way.nodes.as_slice(), tag(&way.tags, "oneway")), (&[1, 2][..], Some("yes")));
        let Element::Relation(relation) = &elements[3] else { panic!("{:?}", elements[3]) };
        assert_eq!(relation.members[1], Member { kind: MemberKind::Node, id: 2, role: "via".into() });
        assert_eq!(tag(&relation.tags, "restriction"), Some("no_left_turn"));
    }

    #[test]
    fn a_broken_file_is_an_error_that_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("broken.osm.pbf");
        std::fs::write(&path, b"\x00\x00\x00\x0dnot a pbf at all").unwrap();
        let error = read_elements(&path, |_| {}).unwrap_err();
        assert!(matches!(error, SourceError::Pbf { .. }), "{error}");
        assert!(error.to_string().contains("broken.osm.pbf"));
        let missing = read_elements(&dir.path().join("nowhere.osm.pbf"), |_| {}).unwrap_err();
        assert!(matches!(missing, SourceError::Io { .. }), "{missing}");
    }

    #[test]
    fn the_content_hash_is_the_files_sha256() {
        let hash = content_hash(&repo_file("data/baltimore.osm.pbf")).unwrap();
        // data/README.md records it.
        assert_eq!(hash, "cd68a7279cf160c10267b96eea42c4f7a6a9ba90593a70e780dd66e905e5e710");
    }
}
