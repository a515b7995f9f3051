import { createStore } from 'jotai';

/** The app's one Jotai store, so code outside React (the query cache's error
 * handler, the socket bridge) writes the same atoms the components read. */
export const appStore = createStore();
