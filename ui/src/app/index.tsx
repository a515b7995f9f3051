import { AppProvider } from './provider';
import { Bootstrap } from './bootstrap';
import { AppRouter } from './router';

export function App() {
  return (
    <AppProvider>
      <Bootstrap>
        <AppRouter />
      </Bootstrap>
    </AppProvider>
  );
}
