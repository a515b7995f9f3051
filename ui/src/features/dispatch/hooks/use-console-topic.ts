import { useCallback, useSyncExternalStore } from 'react';
import type { ConsoleStore, Topic } from '../stores/console-store';

/** Re-renders the caller when a topic of the store changed (a few times a
 * second at most); the caller reads the store's fields directly. */
export function useConsoleTopic(store: ConsoleStore, topic: Topic) {
  const subscribe = useCallback((listener: () => void) => store.subscribe(topic, listener), [store, topic]);
  return useSyncExternalStore(subscribe, () => store.version(topic));
}
