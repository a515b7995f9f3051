/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** A MapLibre style URL for builds that have a tile server; the offline style otherwise. */
  readonly VITE_MAP_STYLE_URL?: string;
}
