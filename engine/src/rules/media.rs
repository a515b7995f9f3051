//! Uploaded images (spec §5 "Admin panel": a car or licence image needs a
//! chosen file): present, and a PNG, JPEG, GIF or WebP by content.

use super::fail;
use crate::error::{DomainError, DomainResult, ErrorKey};
use serde::{Deserialize, Serialize};

/// The image formats we accept, told apart by content rather than file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageKind {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl ImageKind {
    pub const ALL: [ImageKind; 4] = [ImageKind::Png, ImageKind::Jpeg, ImageKind::Gif, ImageKind::Webp];

    pub fn mime(self) -> &'static str {
        match self {
            ImageKind::Png => "image/png",
            ImageKind::Jpeg => "image/jpeg",
            ImageKind::Gif => "image/gif",
            ImageKind::Webp => "image/webp",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            ImageKind::Png => "png",
            ImageKind::Jpeg => "jpg",
            ImageKind::Gif => "gif",
            ImageKind::Webp => "webp",
        }
    }
}

/// Recognises PNG, JPEG, GIF and WebP by their magic bytes.
pub fn sniff_image(bytes: &[u8]) -> Option<ImageKind> {
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.starts_with(PNG) {
        Some(ImageKind::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(ImageKind::Jpeg)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(ImageKind::Gif)
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some(ImageKind::Webp)
    } else {
        None
    }
}

/// A car image or licence image save needs a chosen file (spec §5).
pub fn require_image(present: bool) -> DomainResult<()> {
    if present { Ok(()) } else { fail(ErrorKey::ChooseImageFirst, "image") }
}

/// An uploaded image: present and non-empty (`choose_image_first`), and one
/// of the [`ImageKind`]s by content (`invalid_input`).
pub fn validate_image(bytes: Option<&[u8]>) -> DomainResult<ImageKind> {
    let bytes = bytes.filter(|bytes| !bytes.is_empty());
    require_image(bytes.is_some())?;
    bytes.and_then(sniff_image).ok_or_else(|| DomainError::on_field(ErrorKey::InvalidInput, "image"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::*;
    use proptest::prelude::*;

    #[test]
    fn saving_an_image_needs_a_chosen_file() {
        // spec §5 Admin panel: car or licence image save needs a chosen file ('choose_image_first')
        assert_eq!(require_image(true), Ok(()));
        assert_eq!(failure(require_image(false)), (ErrorKey::ChooseImageFirst, Some("image")));
        assert_eq!(key_of(validate_image(None)), ErrorKey::ChooseImageFirst);
        assert_eq!(key_of(validate_image(Some(&[]))), ErrorKey::ChooseImageFirst);
        assert_eq!(failure(validate_image(Some(b"%PDF-1.7"))), (ErrorKey::InvalidInput, Some("image")));
        assert_eq!(validate_image(Some(b"GIF89a....")), Ok(ImageKind::Gif));
    }

    #[test]
    fn images_are_recognised_by_their_magic_bytes() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".as_slice();
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10].as_slice();
        let webp = b"RIFF\x24\0\0\0WEBPVP8 ".as_slice();
        assert_eq!(sniff_image(png), Some(ImageKind::Png));
        assert_eq!(sniff_image(jpeg), Some(ImageKind::Jpeg));
        assert_eq!(sniff_image(b"GIF87a"), Some(ImageKind::Gif));
        assert_eq!(sniff_image(webp), Some(ImageKind::Webp));
        for bytes in [b"".as_slice(), b"RIFF\0\0\0\0WAVE", b"RIFF", b"<svg", b"\x89PNG", b"GIF88a"] {
            assert_eq!(sniff_image(bytes), None, "{bytes:?}");
        }
        let mimes: Vec<_> = ImageKind::ALL.iter().map(|kind| kind.mime()).collect();
        assert_eq!(mimes, ["image/png", "image/jpeg", "image/gif", "image/webp"]);
        assert_eq!(ImageKind::Jpeg.extension(), "jpg");
    }

    proptest! {
        #[test]
        fn sniff_image_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..32)) {
            let _ = sniff_image(&bytes);
        }
    }
}
