import TillStore
