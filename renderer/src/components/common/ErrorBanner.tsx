import { useKeel } from '../../stores/store.js';

/** Failed calls and main's error events, readable, each dismissable; the link's state when down. */
export function ErrorBanner() {
  const items = useKeel((s) => s.errors.items);
  const dismiss = useKeel((s) => s.errors.dismiss);
  const connection = useKeel((s) => s.connection.state);
  const detail = useKeel((s) => s.connection.detail);
  return (
    <div className="banners">
      {connection !== 'connected' && (
        <div className="banner banner-disconnected" role="status" data-testid="connection-banner">
          <strong>{connection === 'connecting' ? 'Connecting to Keel…' : 'Disconnected from Keel.'}</strong> {detail}
        </div>
      )}
      {items.map((item) => (
        <div key={item.id} className="banner banner-error" role="alert" data-testid="error-banner">
          <span className="banner-text">{item.message}</span>
          <button type="button" className="ghost" onClick={() => dismiss(item.id)} aria-label="Dismiss" data-testid="error-dismiss">
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
