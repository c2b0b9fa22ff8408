import { useConnection } from '../../stores/useConnection.js';
import { useErrors } from '../../stores/useErrors.js';

/** Failed calls and main's error events, readable, each dismissable; the link's state when down. */
export function ErrorBanner() {
  const items = useErrors((s) => s.items);
  const dismiss = useErrors((s) => s.dismiss);
  const connection = useConnection((s) => s.state);
  const detail = useConnection((s) => s.detail);
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
