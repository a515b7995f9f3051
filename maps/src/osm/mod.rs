//! The built-in OpenStreetMap provider: everything from one extract, with no
//! server to install and no internet.

pub mod source;
