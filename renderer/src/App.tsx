export function App() {
  return (
    <main>
      <h1>Keel</h1>
      <p>The session UI comes with the app issue.</p>
    </main>
  );
}
