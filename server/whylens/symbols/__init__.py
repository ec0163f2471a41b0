"""symbols"""
