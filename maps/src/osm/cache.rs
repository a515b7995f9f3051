//! The prepared road network on disk: built once per extract and kept in the
//! data directory under the extract's content hash, so a restart loads it in
//! a moment and a changed file is prepared again.

use super::basemap::Basemap;
use super::geocode::PlaceIndex;
use super::network::{Network, NetworkError};
use super::router::Router;
use super::source::{SourceError, content_hash};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Bumped whenever the prepared format or the car profile changes, so an
/// old cache is never read as a new one.
const FORMAT: u32 = 4;

#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error(transparent)]
    Network(#[from] NetworkError),
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error("cannot write the prepared map to {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

#[derive(Serialize, Deserialize)]
struct Prepared {
    format: u32,
    network: Network,
    hierarchy: super::ch::Hierarchy,
    places: PlaceIndex,
    basemap: Basemap,
}

/// Everything prepared from one extract.
pub struct PreparedMap {
    pub router: Router,
    pub places: PlaceIndex,
    pub basemap: Basemap,
}

/// Where the prepared routing of an extract with this hash is kept.
pub fn cache_path(cache_dir: &Path, hash: &str) -> PathBuf {
    cache_dir.join(format!("{hash}.v{FORMAT}.routing"))
}

/// What [`load_or_prepare`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Cached,
    Prepared,
}

/// The router and place index of an extract: from the cache when it holds
/// this file's preparation, else prepared now and written there.
pub fn load_or_prepare(
    extract: &Path,
    cache_dir: &Path,
    progress: impl FnMut(&str, usize, usize),
) -> Result<(PreparedMap, Origin), PrepareError> {
    let hash = content_hash(extract)?;
    let path = cache_path(cache_dir, &hash);
    if let Ok(bytes) = std::fs::read(&path)
        && let Ok(prepared) = postcard::from_bytes::<Prepared>(&bytes)
        && prepared.format == FORMAT
    {
        let router = Router::new(prepared.network, prepared.hierarchy);
        return Ok((PreparedMap { router, places: prepared.places, basemap: prepared.basemap }, Origin::Cached));
    }
    let mut progress = progress;
    let router = prepare(extract, &mut progress)?;
    progress("indexing places", 0, 1);
    let places = PlaceIndex::from_file(extract)?;
    progress("indexing places", 1, 1);
    progress("drawing the basemap", 0, 1);
    let basemap = Basemap::from_file(extract)?;
    progress("drawing the basemap", 1, 1);
    let (network, hierarchy) = router.into_parts();
    let prepared = Prepared { format: FORMAT, network, hierarchy, places, basemap };
    let write_error = |source| PrepareError::Write { path: path.display().to_string(), source };
    std::fs::create_dir_all(cache_dir).map_err(write_error)?;
    let bytes = postcard::to_stdvec(&prepared).map_err(|error| write_error(std::io::Error::other(error)))?;
    // Written whole, then renamed: a reader never sees half a file.
    let partial = path.with_extension("partial");
    std::fs::write(&partial, bytes).map_err(write_error)?;
    std::fs::rename(&partial, &path).map_err(write_error)?;
    let router = Router::new(prepared.network, prepared.hierarchy);
    Ok((PreparedMap { router, places: prepared.places, basemap: prepared.basemap }, Origin::Prepared))
}

/// Reads the extract and builds its hierarchy, telling `progress` the stage
/// and how far it is.
pub fn prepare(extract: &Path, mut progress: impl FnMut(&str, usize, usize)) -> Result<Router, PrepareError> {
    progress("reading roads", 0, 1);
    let network = Network::from_file(extract)?;
    progress("reading roads", 1, 1);
    Ok(Router::prepare(network, |done, of| progress("building the routing hierarchy", done, of)))
}
