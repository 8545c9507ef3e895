//! Problem files (JSON/TOML) and sample outputs (CSV/NPY/JSON).
